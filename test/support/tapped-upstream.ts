import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface TappedUpstream {
  /** Base URL of the tap (no path): requests to it reach the target with the same path. */
  url: string;
  /** Every request body as the tap received it, exact bytes as text, in order. */
  bodies: string[];
  close(): Promise<void>;
}

/**
 * A loopback tap in front of a real upstream (aimock): it records each request body exactly as
 * the gateway sent it, then forwards the request and relays the answer as it arrives (streams
 * included). aimock's own journal keeps only its reading of a body, which drops what it does not
 * model (image blocks); the tap shows what was on the wire.
 */
export async function startTappedUpstream(target: string): Promise<TappedUpstream> {
  const bodies: string[] = [];
  const { hostname, port } = new URL(target);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      bodies.push(body.toString("utf8"));
      const forwarded = request({ hostname, port, method: req.method, path: req.url, headers: { ...req.headers, host: `${hostname}:${port}` } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        // An upstream that hangs up mid-answer hangs up on the gateway too, as it would without the tap.
        answer.on("close", () => {
          if (!answer.complete) res.destroy();
        });
      });
      forwarded.on("error", () => res.destroy());
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
