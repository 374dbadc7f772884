import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { featureVector } from "./text-features.ts";

/**
 * How the local embedding upstream answers: normally, with an error, too late, or with the
 * vectors `rewrite` makes of each text's featurisation (hostile ones, say).
 */
export type EmbeddingServerMode =
  | { kind: "ok" }
  | { kind: "fail"; status: number }
  | { kind: "slow"; delayMs: number }
  | { kind: "rewrite"; rewrite: (text: string, vector: number[]) => number[] };

export interface EmbeddingServer {
  url: string;
  /** Calls received (`POST /v1/embeddings`), with the text each embedded. */
  calls: string[];
  setMode(mode: EmbeddingServerMode): void;
  close(): Promise<void>;
}

/**
 * An OpenAI-format embeddings upstream on loopback whose vectors are `featureVector` of the
 * input: what tests and `npm run bench:cache` use when no real embedding provider is given.
 */
export async function startEmbeddingServer(): Promise<EmbeddingServer> {
  let mode: EmbeddingServerMode = { kind: "ok" };
  const calls: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST" || !request.url?.endsWith("/embeddings")) {
        response.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"not found"}}');
        return;
      }
      let input: unknown;
      let model: unknown;
      try {
        ({ input, model } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { input: unknown; model: unknown });
      } catch {
        response.writeHead(400, { "content-type": "application/json" }).end('{"error":{"message":"not JSON"}}');
        return;
      }
      const texts = Array.isArray(input) ? input.map(String) : [String(input)];
      calls.push(...texts);
      const answer = (): void => {
        if (mode.kind === "fail") {
          response.writeHead(mode.status, { "content-type": "application/json" }).end('{"error":{"message":"embedding upstream failed","type":"server_error"}}');
          return;
        }
        const current = mode;
        const embed = (text: string): number[] => (current.kind === "rewrite" ? current.rewrite(text, featureVector(text)) : featureVector(text));
        const data = texts.map((text, index) => ({ object: "embedding", index, embedding: embed(text) }));
        const tokens = texts.reduce((sum, text) => sum + text.split(/\s+/).length, 0);
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } }));
      };
      if (mode.kind === "slow") setTimeout(answer, mode.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    calls,
    setMode: (next) => (mode = next),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
