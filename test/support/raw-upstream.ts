import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RawUpstream {
  /** Base URL to use as `x-gateway-custom-host` (ends in `/v1`). */
  url: string;
  close(): Promise<void>;
}

/**
 * A bare `node:http` upstream on loopback for answers aimock cannot give (huge or chunked
 * bodies, arbitrary headers, broken JSON). `handle` gets the parsed request body.
 */
export async function startRawUpstream(handle: (body: any, res: ServerResponse, req: IncomingMessage) => void): Promise<RawUpstream> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      handle(text ? JSON.parse(text) : null, res, req);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Writes `parts()` to `res` chunk by chunk, only as fast as the reader takes them, then ends it. */
export function writeWithBackpressure(res: ServerResponse, parts: Iterator<Buffer>): void {
  const write = (): void => {
    for (;;) {
      if (res.destroyed) return;
      const next = parts.next();
      if (next.done) return void res.end();
      if (!res.write(next.value)) return void res.once("drain", write);
    }
  };
  write();
}
