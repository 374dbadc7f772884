import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { DEFAULT_WORKSPACE_ID } from "../src/control-plane/auth-context.ts";
import { call, freePort, openaiClient, startGateway, startUpstream, upstreamHeaders, type RunningGateway } from "./support/harness.ts";

let gateway: RunningGateway;
let upstream: LLMock;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("slow answer", { content: "eventually" }, { chaos: { latencyMs: 1500 } });
  upstream.onMessage("cut stream", { content: "alpha beta gamma delta epsilon zeta eta theta" }, { latency: 30, chunkSize: 5, disconnectAfterMs: 100 });
  upstream.onMessage("long stream", { content: "word ".repeat(400) }, { chunkSize: 4, latency: 20 });
  upstream.onMessage("hello", { content: "Hello back" });
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
});

async function logOf(logId: string) {
  await gateway.flushLogs();
  return gateway.gateway.deps.store.logs.get(logId, DEFAULT_WORKSPACE_ID);
}

describe("upstream failures", () => {
  it("keeps the upstream's status and maps its error into the envelope", async () => {
    upstream.nextRequestError(429, { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded" });
    const client = openaiClient(gateway, upstream);
    const error = await client.chat.completions
      .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    const apiError = error as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.status).toBe(429);
    expect(apiError.message).toContain("Rate limit reached");
    expect(apiError.code).toBe("rate_limit_exceeded");
    const record = await logOf(apiError.headers?.get("x-gateway-log-id") ?? "");
    expect(record).toMatchObject({ status: 429, success: false, provider: "openai" });
    expect(record!.attempts).toEqual([
      expect.objectContaining({ target: 0, provider: "openai", model: "gpt-4o-mini", status: 429, errorCode: "rate_limit_exceeded", errorMessage: expect.stringContaining("Rate limit reached") }),
    ]);
  });

  it("answers 502 when the upstream cannot be reached", async () => {
    const port = await freePort();
    const response = await call(gateway, "POST", "/v1/chat/completions", {
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] },
      headers: { ...upstreamHeaders(gateway, upstream), "x-gateway-custom-host": `http://127.0.0.1:${port}/v1` },
    });
    expect(response.status).toBe(502);
    expect(response.body.error.code).toBe("upstream_unreachable");
    const record = await logOf(response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ status: 502, success: false, errorCode: "upstream_unreachable" });
    expect(record!.attempts).toEqual([expect.objectContaining({ target: 0, provider: "openai", status: null, errorCode: "upstream_unreachable" })]);
    // The view shows the attempts too.
    const view = await call(gateway, "GET", `/v1/logs/${response.headers.get("x-gateway-log-id")}`);
    expect(view.body.attempts).toEqual([expect.objectContaining({ target: 0, provider: "openai", status: null, error_code: "upstream_unreachable" })]);
  });

  it("answers 408 when the upstream is slower than x-gateway-request-timeout", async () => {
    const started = Date.now();
    const response = await call(gateway, "POST", "/v1/chat/completions", {
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "slow answer" }] },
      headers: { ...upstreamHeaders(gateway, upstream), "x-gateway-request-timeout": "200" },
    });
    expect(response.status).toBe(408);
    expect(response.body.error.code).toBe("request_timeout");
    expect(Date.now() - started).toBeLessThan(1400);
  });

  it("ends a stream that fails midway with an explicit error event, never a clean end", async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { ...upstreamHeaders(gateway, upstream), "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "cut stream" }] }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain("event: error");
    expect(text).not.toContain("data: [DONE]");
    const errorData = text.split("event: error\ndata: ")[1]?.split("\n")[0];
    expect(JSON.parse(errorData!).error.code).toBeTruthy();

    // The official client surfaces it as an error rather than a finished stream.
    const client = openaiClient(gateway, upstream);
    const consume = async () => {
      const stream = await client.chat.completions.create({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "cut stream" }] });
      for await (const _chunk of stream) void _chunk;
    };
    await expect(consume()).rejects.toThrow();

    const record = await logOf(response.headers.get("x-gateway-log-id")!);
    expect(record?.success).toBe(false);
    expect(record?.stream).toBe(true);
  });

  it("aborts the upstream request when the client disconnects mid-stream", async () => {
    const controller = new AbortController();
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { ...upstreamHeaders(gateway, upstream), "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "long stream" }] }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    const logId = response.headers.get("x-gateway-log-id")!;
    let record;
    for (let attempt = 0; attempt < 50 && !record; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      record = await logOf(logId);
    }
    expect(record).toMatchObject({ success: false, errorCode: "client_closed", stream: true });
    expect(gateway.gateway.deps.inflight.size).toBe(0);
  });
});
