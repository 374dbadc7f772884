/**
 * `npm run bench:cache`: how well the semantic cache tells requests that mean the same from
 * those that do not, on a labelled set of request pairs (`scripts/semantic/pairs.json`):
 * paraphrases that should hit, and near-misses that must not (negations, other entities, other
 * numbers, other languages). Each pair runs through the real gateway in its own namespace: the
 * first request is a miss that stores its answer, the second is looked up by meaning at the
 * lowest threshold asked, and its log's `cache_similarity` says at which thresholds it would
 * have hit. Prints the hit rate and false-hit rate per threshold.
 *
 * The embedding target is the local featurisation (`scripts/semantic/text-features.ts`) unless
 * `BENCH_CACHE_EMBEDDING_API_KEY` is set, then a real provider through a virtual key:
 *   BENCH_CACHE_EMBEDDING_API_KEY=sk-… npm run bench:cache -- --provider openai --model text-embedding-3-small
 * `--base-url` sends the calls to another OpenAI-compatible host (a local server, say);
 * `--thresholds 0.8,0.9,0.95` picks the thresholds; `--pairs file.json` another labelled set.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { ServerType } from "@hono/node-server";
import { DEFAULT_WORKSPACE_ID } from "../src/control-plane/auth-context.ts";
import { configWith } from "../src/config.ts";
import { createGateway } from "../src/gateway.ts";
import { serveOnNode } from "../src/server/node-server.ts";
import { startEmbeddingServer } from "./semantic/embedding-server.ts";

interface Pair {
  kind: "paraphrase" | "negation" | "entity" | "number" | "language";
  a: string;
  b: string;
}

const { values } = parseArgs({
  options: {
    provider: { type: "string", default: "openai" },
    model: { type: "string", default: "text-embedding-3-small" },
    "base-url": { type: "string" },
    thresholds: { type: "string", default: "0.80,0.85,0.90,0.93,0.95,0.97" },
    pairs: { type: "string", default: join(import.meta.dirname, "semantic", "pairs.json") },
  },
});

const thresholds = values.thresholds
  .split(",")
  .map(Number)
  .filter((value) => Number.isFinite(value) && value >= 0.5 && value <= 1)
  .sort((a, b) => a - b);
if (thresholds.length === 0) throw new Error("bench:cache: --thresholds needs values between 0.5 and 1");
const pairs = JSON.parse(await readFile(values.pairs, "utf8")) as Pair[];
const apiKey = process.env.BENCH_CACHE_EMBEDDING_API_KEY;

/** A chat upstream that answers every request at once: only the cache's decisions are measured. */
async function startChatUpstream(): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const answer = { id: `chatcmpl-${randomUUID()}`, object: "chat.completion", created: 0, model: "gpt-4o-mini", choices: [{ index: 0, message: { role: "assistant", content: "An answer." }, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 } };
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server };
}

const chat = await startChatUpstream();
const local = apiKey ? null : await startEmbeddingServer();
const dataDir = await mkdtemp(join(tmpdir(), "gateway-bench-cache-"));
const adminKey = `bench-cache-${randomBytes(12).toString("hex")}`;
const gateway = await createGateway(
  configWith({
    GATEWAY_DATABASE_URL: `file:${join(dataDir, "bench.db")}`,
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_ADMIN_KEY: adminKey,
    GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    GATEWAY_QUIET: true,
    GATEWAY_TRUSTED_CUSTOM_HOSTS: ["127.0.0.1"],
    // A real provider's round trip may pass the request path's budget; here it must not skip a pair.
    GATEWAY_SEMANTIC_CACHE_EMBEDDING_TIMEOUT_MS: 30_000,
  }),
);
const server: ServerType = await new Promise((resolve) => {
  const started = serveOnNode(gateway.app.fetch, { port: 0, hostname: "127.0.0.1" }, () => resolve(started));
});
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; logId: string | null; cacheStatus: string | null; text: string }> {
  const response = await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-gateway-api-key": adminKey, ...headers }, body: JSON.stringify(body) });
  return { status: response.status, logId: response.headers.get("x-gateway-log-id"), cacheStatus: response.headers.get("x-gateway-cache-status"), text: await response.text() };
}

try {
  const embeddingHost = values["base-url"] ?? local?.url;
  const created = await post("/v1/virtual-keys", { name: "bench embeddings", provider: values.provider, key: apiKey ?? "sk-local", ...(embeddingHost ? { custom_host: embeddingHost } : {}) });
  if (created.status !== 201) throw new Error(`bench:cache: could not create the embedding key: ${created.status} ${created.text}`);
  const slug = (JSON.parse(created.text) as { slug: string }).slug;
  const config = JSON.stringify({ cache: { mode: "semantic", max_age: 3600, similarity_threshold: thresholds[0], embedding: { virtual_key: slug, model: values.model } } });
  const target = { "x-gateway-provider": "openai", "x-gateway-custom-host": chat.url, authorization: "Bearer sk-chat", "x-gateway-config": config };
  const ask = (content: string, namespace: string) => post("/v1/chat/completions", { model: "gpt-4o-mini", messages: [{ role: "user", content }] }, { ...target, "x-gateway-cache-namespace": namespace });

  console.error(`bench:cache: ${pairs.length} pairs, embedding ${apiKey ? `${values.provider} ${values.model}${values["base-url"] ? ` at ${values["base-url"]}` : ""}` : "local featurisation"}`);
  const results: Array<{ kind: Pair["kind"]; similarity: number | null; note: string | null }> = [];
  for (const [index, pair] of pairs.entries()) {
    const namespace = randomUUID();
    const first = await ask(pair.a, namespace);
    const second = await ask(pair.b, namespace);
    if (first.status !== 200 || second.status !== 200) throw new Error(`bench:cache: pair ${index} answered ${first.status} / ${second.status}: ${second.text.slice(0, 300)}`);
    await gateway.deps.logWriter.flush();
    const [stored, looked] = await Promise.all([first, second].map((answer) => gateway.deps.store.logs.get(answer.logId!, DEFAULT_WORKSPACE_ID)));
    const note = stored?.cacheNote ?? looked?.cacheNote ?? null;
    results.push({ kind: pair.kind, similarity: second.cacheStatus === "SEMANTIC_HIT" ? (looked?.cacheSimilarity ?? null) : null, note });
    if ((index + 1) % 50 === 0) console.error(`  ${index + 1}/${pairs.length}`);
  }

  const skipped = results.filter((result) => result.note !== null);
  if (skipped.length > 0) console.error(`bench:cache: ${skipped.length} pair(s) not looked up by meaning: ${skipped[0]!.note}`);
  const counted = results.filter((result) => result.note === null);
  const paraphrases = counted.filter((result) => result.kind === "paraphrase");
  const nearMisses = counted.filter((result) => result.kind !== "paraphrase");
  const kinds = ["negation", "entity", "number", "language"] as const;
  const rate = (part: number, whole: number): string => (whole === 0 ? "-" : `${((100 * part) / whole).toFixed(1)}%`);
  const hitsAt = (list: typeof counted, threshold: number): number => list.filter((result) => result.similarity !== null && result.similarity >= threshold).length;

  console.log(`\n${paraphrases.length} paraphrase pairs, ${nearMisses.length} near-miss pairs (${kinds.map((kind) => `${counted.filter((r) => r.kind === kind).length} ${kind}`).join(", ")})\n`);
  console.log(["threshold", "hit rate", "false-hit rate", ...kinds.map((kind) => `false ${kind}`)].map((cell) => cell.padEnd(15)).join(""));
  for (const threshold of thresholds) {
    const row = [
      threshold.toFixed(2),
      rate(hitsAt(paraphrases, threshold), paraphrases.length),
      rate(hitsAt(nearMisses, threshold), nearMisses.length),
      ...kinds.map((kind) => {
        const ofKind = nearMisses.filter((result) => result.kind === kind);
        return rate(hitsAt(ofKind, threshold), ofKind.length);
      }),
    ];
    console.log(row.map((cell) => cell.padEnd(15)).join(""));
  }
} finally {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await gateway.drain();
  await local?.close();
  await new Promise<void>((resolve) => chat.server.close(() => resolve()));
  await rm(dataDir, { recursive: true, force: true });
}
