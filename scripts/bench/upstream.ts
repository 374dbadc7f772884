/**
 * Zero-delay OpenAI-like upstream for the bench, run under Bun: `PORT=n bun scripts/bench/upstream.ts`.
 * It answers Anthropic's `POST /v1/messages` too (the same answer), for the translated `anthropic` target.
 * Answers are precomputed so the upstream's own cost stays flat and small for every target.
 */
import { anthropicMessageJson, anthropicStreamEvents, completionJson, doneEvent, fileJson, responsesEvents, streamEvents, usageEvent } from "./fixtures.ts";

const encoder = new TextEncoder();
const completionBytes = encoder.encode(completionJson);
const eventsWithUsage = [...streamEvents, usageEvent, doneEvent].map((event) => encoder.encode(event));
const eventsWithoutUsage = [...streamEvents, doneEvent].map((event) => encoder.encode(event));
const responsesStream = responsesEvents.map((event) => encoder.encode(event));
const messageBytes = encoder.encode(anthropicMessageJson);
const messageStream = anthropicStreamEvents.map((event) => encoder.encode(event));
// One vector for any text, of text-embedding-3-small's size: the semantic target's embedding round trip.
const embeddingBytes = encoder.encode(
  JSON.stringify({ object: "list", data: [{ object: "embedding", index: 0, embedding: Array.from({ length: 1536 }, (_, i) => Math.sin(i + 1) / 27.7) }], model: "text-embedding-3-small", usage: { prompt_tokens: 12, total_tokens: 12 } }),
);

interface ChatRequest {
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
}

function sse(events: Uint8Array[]): Response {
  // One enqueue per event so the relay sees separate chunks, as from a real model.
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const event of events) controller.enqueue(event);
      controller.close();
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
  });
}

/** Reads an upload as it arrives and keeps none of it: only its size. */
async function discard(body: ReadableStream<Uint8Array> | null): Promise<number> {
  let bytes = 0;
  const reader = body?.getReader();
  for (;;) {
    const read = await reader?.read();
    if (!read || read.done) return bytes;
    bytes += read.value.byteLength;
  }
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(process.env.PORT ?? 0),
  // The 100 MiB upload and its form's framing; Bun's default stops at 128 MiB.
  maxRequestBodySize: 1024 * 1024 * 1024,
  async fetch(request) {
    const { pathname } = new URL(request.url);
    if (request.method === "POST" && pathname === "/v1/files") {
      return new Response(fileJson(await discard(request.body)), { headers: { "content-type": "application/json" } });
    }
    if (request.method === "POST" && pathname === "/v1/responses") {
      const body = (await request.json()) as { stream?: boolean };
      if (body.stream === true) return sse(responsesStream);
      return new Response("only streamed responses here", { status: 400 });
    }
    if (request.method === "POST" && pathname === "/v1/embeddings") {
      await request.arrayBuffer();
      return new Response(embeddingBytes, { headers: { "content-type": "application/json" } });
    }
    if (request.method === "POST" && pathname === "/v1/messages") {
      const body = (await request.json()) as { stream?: boolean };
      if (body.stream === true) return sse(messageStream);
      return new Response(messageBytes, { headers: { "content-type": "application/json" } });
    }
    if (request.method !== "POST" || pathname !== "/v1/chat/completions") {
      return new Response("not found", { status: 404 });
    }
    const body = (await request.json()) as ChatRequest;
    if (body.stream === true) {
      return sse(body.stream_options?.include_usage === true ? eventsWithUsage : eventsWithoutUsage);
    }
    return new Response(completionBytes, { headers: { "content-type": "application/json" } });
  },
});

console.log(`bench upstream on ${server.url.href}`);
