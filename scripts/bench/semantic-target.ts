/**
 * The bench's `semantic` target: the gateway with a `semantic` cache config whose embedding
 * target is the bench upstream (`POST /v1/embeddings`, one precomputed 1536-dimension vector
 * for any text, the size of `text-embedding-3-small`'s). Warmed with a paraphrase of the bench's
 * chat and streamed requests, so that every measured request misses the exact cache (nothing is
 * stored under its exact key), embeds its last user turn, and is a `SEMANTIC_HIT`: the exact
 * cache's path plus the embedding round trip and the index search.
 */
import { chatBody, streamBody } from "./fixtures.ts";
import { gatewayTarget, type Target } from "./targets.ts";

async function createEmbeddingKey(gatewayPort: number, upstreamPort: number, adminKey: string): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${gatewayPort}/v1/virtual-keys`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-gateway-api-key": adminKey },
    body: JSON.stringify({ name: "bench embeddings", provider: "openai", key: "sk-bench", custom_host: `http://127.0.0.1:${upstreamPort}/v1` }),
  });
  if (response.status !== 201) throw new Error(`bench: could not create the embedding key: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { slug: string }).slug;
}

/** The body with its last user turn reworded: another exact key, the same meaning. */
function paraphrased(body: string): string {
  const value = JSON.parse(body) as { messages: Array<{ role: string; content: string }> };
  const messages = value.messages.map((message, index) => (index === value.messages.length - 1 ? { ...message, content: `${message.content} Please.` } : message));
  return JSON.stringify({ ...value, messages });
}

export async function semanticTarget(gatewayPort: number, upstreamPort: number, adminKey: string): Promise<Target> {
  const slug = await createEmbeddingKey(gatewayPort, upstreamPort, adminKey);
  const config = JSON.stringify({ cache: { mode: "semantic", max_age: 3600, embedding: { virtual_key: slug, model: "text-embedding-3-small" } } });
  const gateway = gatewayTarget(gatewayPort, upstreamPort, adminKey);
  // A namespace of its own: the `cache` target's exact answers to the same body must not serve it.
  const target: Target = { ...gateway, name: "semantic", headers: { ...gateway.headers, "x-gateway-config": config, "x-gateway-cache-namespace": "bench-semantic" } };
  for (const body of [chatBody, streamBody]) {
    const response = await fetch(target.url, { method: "POST", headers: target.headers, body: paraphrased(body) });
    await response.text();
    if (response.headers.get("x-gateway-cache-status") !== "MISS") throw new Error(`bench: the semantic target's warm-up was ${response.headers.get("x-gateway-cache-status")}, not a MISS`);
  }
  // Stored after the answer completes: a moment for the streamed one.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const check = await fetch(target.url, { method: "POST", headers: target.headers, body: chatBody });
  await check.text();
  if (check.headers.get("x-gateway-cache-status") !== "SEMANTIC_HIT") throw new Error(`bench: the semantic target answers ${check.headers.get("x-gateway-cache-status")}, not SEMANTIC_HIT`);
  return target;
}
