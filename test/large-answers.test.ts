import { createHash } from "node:crypto";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_WORKSPACE_ID } from "../src/control-plane/auth-context.ts";
import { call, startGateway, type RunningGateway } from "./support/harness.ts";
import { startRawUpstream, writeWithBackpressure, type RawUpstream } from "./support/raw-upstream.ts";

const MiB = 1024 * 1024;
const BIG_CONTENT_BYTES = 40 * MiB;
const PIECE = Buffer.alloc(64 * 1024, "a");
const USAGE = { prompt_tokens: 11, completion_tokens: 4321, total_tokens: 4332 };

/** A ~40 MB chat completion, its usage at the end, written in pieces (chunked, no Content-Length). */
function* bigCompletion(): Generator<Buffer> {
  yield Buffer.from('{"id":"chatcmpl-big","object":"chat.completion","created":1,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":"');
  for (let sent = 0; sent < BIG_CONTENT_BYTES; sent += PIECE.length) yield PIECE;
  yield Buffer.from(`"},"finish_reason":"stop"}],"usage":${JSON.stringify(USAGE)},"system_fingerprint":"fp_big"}`);
}

function bigCompletionDigest(): { sha256: string; bytes: number } {
  const hash = createHash("sha256");
  let bytes = 0;
  for (const piece of bigCompletion()) {
    hash.update(piece);
    bytes += piece.length;
  }
  return { sha256: hash.digest("hex"), bytes };
}

/** A ~20 MB chat stream: 20,000 content events, then the usage chunk and `[DONE]`. */
function* bigStream(): Generator<Buffer> {
  const content = "b".repeat(1000);
  const event = Buffer.from(`data: ${JSON.stringify({ id: "chatcmpl-s", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`);
  for (let i = 0; i < 20_000; i++) yield event;
  yield Buffer.from(`data: ${JSON.stringify({ id: "chatcmpl-s", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [], usage: USAGE })}\n\n`);
  yield Buffer.from("data: [DONE]\n\n");
}

/** One stream event that never ends: 64 MiB of content on a line without its line break. */
function* endlessEvent(): Generator<Buffer> {
  yield Buffer.from('data: {"id":"chatcmpl-e","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"');
  for (let sent = 0; sent < 64 * MiB; sent += PIECE.length) yield PIECE;
}

let upstream: RawUpstream;
let gateway: RunningGateway;

beforeAll(async () => {
  upstream = await startRawUpstream((body, res) => {
    const prompt = String(body?.messages?.[0]?.content ?? "");
    if (prompt === "big stream") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      return writeWithBackpressure(res, bigStream());
    }
    if (prompt === "endless event") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      return writeWithBackpressure(res, endlessEvent());
    }
    res.writeHead(200, { "content-type": "application/json" });
    if (prompt === "small") return res.end(JSON.stringify({ id: "c", object: "chat.completion", created: 1, model: "gpt-4o-mini", choices: [], usage: USAGE }));
    writeWithBackpressure(res, bigCompletion());
  });
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const headers = (): Record<string, string> => ({
  "x-gateway-api-key": gateway.adminKey,
  "x-gateway-provider": "openai",
  "x-gateway-custom-host": upstream.url,
  authorization: "Bearer sk-test",
  "content-type": "application/json",
});

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

/** Memory the process holds on to: the heap and array buffers after a full collection. */
function liveBytes(): number {
  collectGarbage();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

/** Reads a response without holding it: its digest and size. */
async function digestOf(response: Response): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    bytes += chunk.byteLength;
  }
  return { sha256: hash.digest("hex"), bytes };
}

async function logOf(logId: string) {
  await gateway.flushLogs();
  return gateway.gateway.deps.store.logs.get(logId, DEFAULT_WORKSPACE_ID);
}

describe("answers larger than the log keeps", () => {
  it("relays a 40 MB answer byte for byte as it arrives and logs its first MiB, its size and its usage", async () => {
    const expected = bigCompletionDigest();
    // A first request compiles and caches what every request uses; only the answer's cost is measured.
    const warm = await fetch(`${gateway.url}/v1/chat/completions`, { method: "POST", headers: headers(), body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "small" }] }) });
    expect(warm.status).toBe(200);
    await warm.text();
    await gateway.flushLogs();
    // Live memory (after a collection), sampled throughout: garbage of the pieces passing through is not held.
    const before = liveBytes();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, liveBytes())), 50);
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: headers(),
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "big json" }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    const received = await digestOf(response);
    const record = await logOf(response.headers.get("x-gateway-log-id")!);
    clearInterval(sampler);
    expect(received).toEqual(expected);

    expect(record).toMatchObject({
      status: 200,
      success: true,
      responseBodyTruncated: true,
      responseBodyBytes: expected.bytes,
      promptTokens: 11,
      completionTokens: 4321,
      totalTokens: 4332,
      requestBodyTruncated: false,
    });
    expect(record!.costUsd).toBeGreaterThan(0);
    expect(Buffer.byteLength(record!.responseBody ?? "")).toBeLessThanOrEqual(MiB);
    expect(record!.responseBody!.startsWith('{"id":"chatcmpl-big"')).toBe(true);
    // The gateway holds a bounded window of the answer, never the answer (held whole, the growth
    // was over 200 MiB). The margin is for socket and stream buffers in flight between the
    // upstream, the gateway and the client, all three in this process.
    expect(peak - before).toBeLessThan(30 * MiB);

    const view = await call(gateway, "GET", `/v1/logs/${record!.id}`);
    expect(view.status).toBe(200);
    expect(view.body.response).toMatchObject({ truncated: true, size_bytes: expected.bytes });
    expect(view.body.request).toMatchObject({ truncated: false, size_bytes: expect.any(Number) });
  }, 60_000);

  it("logs a 20 MB stream cut to the limit, with its full size and usage", async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: headers(),
      body: JSON.stringify({ model: "gpt-4o-mini", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "big stream" }] }),
    });
    expect(response.status).toBe(200);
    const received = await digestOf(response);
    expect(received.bytes).toBeGreaterThan(20 * 1000 * 1000);
    const record = await logOf(response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ status: 200, success: true, stream: true, responseBodyTruncated: true, totalTokens: 4332, completionTokens: 4321 });
    expect(record!.responseBodyBytes).toBeGreaterThan(20 * 1000 * 1000);
    expect(Buffer.byteLength(record!.responseBody ?? "")).toBeLessThanOrEqual(MiB);
  });

  it("keeps the first bytes of a large request body, flagged, with its full size", async () => {
    const content = "c".repeat(2 * MiB);
    const response = await call(gateway, "POST", "/v1/chat/completions", {
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "small" }, { role: "user", content }] },
      headers: { ...headers(), "x-gateway-request-timeout": "10" },
    });
    const record = await logOf(response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ requestBodyTruncated: true });
    expect(record!.requestBodyBytes).toBeGreaterThan(2 * MiB);
    expect(Buffer.byteLength(record!.requestBody ?? "")).toBeLessThanOrEqual(MiB);
  });
});

describe("answers the gateway must read whole", () => {
  let small: RunningGateway;

  beforeAll(async () => {
    small = await startGateway({ GATEWAY_MAX_RESPONSE_BUFFER_BYTES: 4 * MiB });
  });

  afterAll(async () => {
    await small?.close();
  });

  it("answers 502 past the buffer limit when output guardrails must judge the answer, and logs a failure", async () => {
    const guardrail = await call(small, "POST", "/v1/guardrails", { body: { name: "Short", checks: [{ type: "word_count", params: { max: 50 } }] } });
    expect(guardrail.status).toBe(201);
    const response = await call(small, "POST", "/v1/chat/completions", {
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "big json" }] },
      headers: { ...headers(), "x-gateway-api-key": small.adminKey, "x-gateway-config": JSON.stringify({ output_guardrails: [guardrail.body.slug] }) },
    });
    expect(response.status).toBe(502);
    expect(response.body.error.code).toBe("upstream_error");
    expect(response.body.error.message).toContain(String(4 * MiB));
    await small.flushLogs();
    const record = await small.gateway.deps.store.logs.get(response.headers.get("x-gateway-log-id")!, DEFAULT_WORKSPACE_ID);
    expect(record).toMatchObject({ status: 502, success: false, errorCode: "upstream_error", responseBodyTruncated: true });
    expect(Buffer.byteLength(record!.responseBody ?? "")).toBeLessThanOrEqual(MiB);
  });

  it("ends a stream with an error event past the buffer limit when output guardrails must judge it", async () => {
    const guardrail = await call(small, "POST", "/v1/guardrails", { body: { name: "Short stream", checks: [{ type: "word_count", params: { max: 50 } }] } });
    const response = await fetch(`${small.url}/v1/chat/completions`, {
      method: "POST",
      headers: { ...headers(), "x-gateway-api-key": small.adminKey, "x-gateway-config": JSON.stringify({ output_guardrails: [guardrail.body.slug] }) },
      body: JSON.stringify({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "big stream" }] }),
    });
    const text = await response.text();
    expect(text).toContain("event: error");
    expect(text).not.toContain("data: [DONE]");
    expect(text.length).toBeLessThan(6 * MiB);
    await small.flushLogs();
    const record = await small.gateway.deps.store.logs.get(response.headers.get("x-gateway-log-id")!, DEFAULT_WORKSPACE_ID);
    expect(record).toMatchObject({ success: false, errorCode: "upstream_error", responseBodyTruncated: true });
  });

  it("ends a stream whose one event grows past the buffer limit with an error event, without holding it all", async () => {
    const response = await fetch(`${small.url}/v1/chat/completions`, {
      method: "POST",
      headers: { ...headers(), "x-gateway-api-key": small.adminKey },
      body: JSON.stringify({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "endless event" }] }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain("event: error");
    expect(text).toContain("GATEWAY_MAX_RESPONSE_BUFFER_BYTES");
    expect(text.length).toBeLessThan(MiB);
    await small.flushLogs();
    const record = await small.gateway.deps.store.logs.get(response.headers.get("x-gateway-log-id")!, DEFAULT_WORKSPACE_ID);
    expect(record).toMatchObject({ status: 200, success: false, stream: true, errorCode: "upstream_error" });
    expect(record!.responseBodyBytes).toBeLessThan(8 * MiB);
  });
});
