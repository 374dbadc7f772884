import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { verifySignature } from "../../src/webhooks/webhook-signature.ts";

/** One POST the receiver got: its headers, its raw body, and whether its signature verified. */
export interface Received {
  headers: IncomingMessage["headers"];
  body: string;
  event: { id: string; type: string; created_at: string; workspace_id: string; data: Record<string, any> };
  verified: boolean;
}

/**
 * A webhook receiver on loopback that checks each delivery's signature as the docs tell a
 * receiver to (HMAC-SHA256 of `<t>.<raw body>`, `t` within five minutes). `answer` decides each
 * reply: a status, or `hang` (never answer).
 */
export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** Deliveries that verified, of one event type. */
  verified(type?: string): Received[];
  setSecret(secret: string): void;
  answer(next: (received: Received, index: number) => number | "hang"): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(path = "/hooks/gateway"): Promise<WebhookReceiver> {
  let secret = "";
  let decide: (received: Received, index: number) => number | "hang" = () => 200;
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let event: Received["event"];
      try {
        event = JSON.parse(body) as Received["event"];
      } catch {
        event = { id: "", type: "", created_at: "", workspace_id: "", data: {} };
      }
      const signature = request.headers["x-gateway-signature"];
      const entry: Received = { headers: request.headers, body, event, verified: verifySignature(secret, typeof signature === "string" ? signature : null, body, Math.floor(Date.now() / 1000)) };
      received.push(entry);
      const outcome = decide(entry, received.length - 1);
      if (outcome === "hang") {
        hanging.push(response);
        return;
      }
      response.writeHead(outcome, { "content-type": "text/plain" }).end(outcome < 300 ? "ok" : "no");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    verified: (type) => received.filter((entry) => entry.verified && (type === undefined || entry.event.type === type)),
    setSecret: (value) => {
      secret = value;
    },
    answer: (next) => {
      decide = next;
    },
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
