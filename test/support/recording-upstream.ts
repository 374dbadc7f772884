import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the upstream received it: method, path with query, headers and body bytes. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body: string | Buffer;
}

export interface RecordingUpstream {
  /** Base URL to use as `x-gateway-custom-host` (ends in `/v1`). */
  url: string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * A `node:http` upstream on loopback that records every request exactly as it arrived and
 * answers what `answer` returns (JSON when the body is an object), for paths aimock lacks.
 */
export async function startRecordingUpstream(answer: (request: ReceivedRequest) => Answer | object): Promise<RecordingUpstream> {
  const received: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request: ReceivedRequest = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) };
      received.push(request);
      const given = answer(request);
      const reply: Answer = "body" in given ? (given as Answer) : { body: JSON.stringify(given), headers: { "content-type": "application/json" } };
      res.writeHead(reply.status ?? 200, reply.headers ?? {});
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
