import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { call, startGateway, startUpstream, storedLog, upstreamHeaders, type RunningGateway } from "./support/harness.ts";

let gateway: RunningGateway;
let upstream: LLMock;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("hello", { content: "Hello back" });
  gateway = await startGateway({ GATEWAY_MAX_BODY_BYTES: 64 * 1024 });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
});

function expectEnvelope(body: any, code: string, param?: string | null): void {
  expect(Object.keys(body)).toEqual(["error"]);
  expect(typeof body.error.message).toBe("string");
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(typeof body.error.type).toBe("string");
  expect(body.error.code).toBe(code);
  if (param !== undefined) expect(body.error.param).toBe(param);
}

const chat = (body: unknown, extra: { rawBody?: string; headers?: Record<string, string>; key?: string | null } = {}) =>
  call(gateway, "POST", "/v1/chat/completions", {
    body,
    rawBody: extra.rawBody,
    key: extra.key,
    headers: { ...upstreamHeaders(gateway, upstream), ...extra.headers },
  });

async function stillServes(): Promise<void> {
  const ok = await chat({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] });
  expect(ok.status).toBe(200);
  expect(ok.body.choices[0].message.content).toBe("Hello back");
}

describe("bad input gets a clear 4xx and the gateway keeps serving", () => {
  it("malformed JSON → 400 invalid_json", async () => {
    const response = await chat(undefined, { rawBody: '{"model": "gpt-4o", "messages": [' });
    expect(response.status).toBe(400);
    expectEnvelope(response.body, "invalid_json");
    // Its log says what the client was told, not that the gateway failed.
    const log = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(log).toMatchObject({ status: 400, success: false, errorCode: "invalid_json", errorMessage: "The request body is not valid JSON." });
    await stillServes();
  });

  it("missing model → 400 naming model", async () => {
    const response = await chat({ messages: [{ role: "user", content: "hello" }] });
    expect(response.status).toBe(400);
    expectEnvelope(response.body, "invalid_request", "model");
    expect(response.body.error.message).toContain("model");
    await stillServes();
  });

  it("wrong types → 400 naming the field", async () => {
    const messages = await chat({ model: "gpt-4o", messages: "hello" });
    expect(messages.status).toBe(400);
    expectEnvelope(messages.body, "invalid_request", "messages");
    const role = await chat({ model: "gpt-4o", messages: [{ role: "wizard", content: "hi" }] });
    expect(role.status).toBe(400);
    expectEnvelope(role.body, "invalid_request", "messages.0.role");
    const tokens = await chat({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }], max_completion_tokens: "lots" });
    expect(tokens.status).toBe(400);
    expectEnvelope(tokens.body, "invalid_request", "max_completion_tokens");
    await stillServes();
  });

  it("a JSON body that is not an object → 400", async () => {
    const response = await chat(undefined, { rawBody: "[1,2,3]" });
    expect(response.status).toBe(400);
    expect(response.body.error.type).toBe("invalid_request_error");
    await stillServes();
  });

  it("a huge body → 413", async () => {
    const huge = { model: "gpt-4o", messages: [{ role: "user", content: "x".repeat(200 * 1024) }] };
    // The gateway answers before reading the whole body, so this connection cannot be reused.
    const response = await chat(huge, { headers: { connection: "close" } });
    expect(response.status).toBe(413);
    expectEnvelope(response.body, "body_too_large");
    await stillServes();
  });

  it("a huge body sent in chunks, without content-length → 413", async () => {
    const part = new TextEncoder().encode(`{"model":"gpt-4o","messages":[{"role":"user","content":"${"x".repeat(16 * 1024)}`);
    const filler = new TextEncoder().encode("x".repeat(16 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // 16 KiB chunks, 128 KiB in all: twice the limit, never declared up front.
        controller.enqueue(sent === 0 ? part : filler);
        if (++sent === 8) controller.close();
      },
    });
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { ...upstreamHeaders(gateway, upstream), "x-gateway-api-key": gateway.adminKey, "content-type": "application/json", connection: "close" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(response.headers.get("content-length")).not.toBeNull();
    expect(response.status).toBe(413);
    expectEnvelope(await response.json(), "body_too_large");
    await stillServes();
  });

  it("a small chunked body without content-length is read and served", async () => {
    const text = JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text.slice(0, 20)));
        controller.enqueue(new TextEncoder().encode(text.slice(20)));
        controller.close();
      },
    });
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { ...upstreamHeaders(gateway, upstream), "x-gateway-api-key": gateway.adminKey, "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(200);
    expect((await response.json()).choices[0].message.content).toBe("Hello back");
  });

  it("unknown provider → 400", async () => {
    const response = await chat({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }, { headers: { "x-gateway-provider": "no-such-provider" } });
    expect(response.status).toBe(400);
    expectEnvelope(response.body, "unknown_provider", "x-gateway-provider");
    const fromModel = await chat({ model: "@nowhere/gpt-4o", messages: [{ role: "user", content: "hi" }] });
    expect(fromModel.status).toBe(400);
    expectEnvelope(fromModel.body, "unknown_provider", "model");
    await stillServes();
  });

  it("missing or wrong gateway key → 401", async () => {
    const missing = await chat({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }, { key: null, headers: { "x-gateway-api-key": "" } });
    expect(missing.status).toBe(401);
    expectEnvelope(missing.body, "missing_api_key");
    const wrong = await chat({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }, { headers: { "x-gateway-api-key": "gw_not-a-real-key" } });
    expect(wrong.status).toBe(401);
    expectEnvelope(wrong.body, "invalid_api_key");
    await stillServes();
  });

  it("invalid metadata header → 400 naming the header", async () => {
    const response = await chat(
      { model: "gpt-4o", messages: [{ role: "user", content: "hi" }] },
      { headers: { "x-gateway-metadata": '{"team": 42}' } },
    );
    expect(response.status).toBe(400);
    expectEnvelope(response.body, "invalid_request", "x-gateway-metadata");
    await stillServes();
  });

  it("private and link-local custom hosts are refused (no SSRF)", async () => {
    for (const host of ["http://169.254.169.254/latest", "http://10.0.0.5/v1", "http://192.168.1.1/v1", "http://[fd00::1]/v1", "file:///etc/passwd"]) {
      const response = await chat({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }, { headers: { "x-gateway-custom-host": host } });
      expect(response.status, host).toBe(400);
      expect(response.body.error.param, host).toBe("x-gateway-custom-host");
    }
    await stillServes();
  });

  it("invalid request timeout header → 400", async () => {
    const response = await chat({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }, { headers: { "x-gateway-request-timeout": "soon" } });
    expect(response.status).toBe(400);
    expectEnvelope(response.body, "invalid_request", "x-gateway-request-timeout");
  });

  it("unknown routes → 404 envelope; other /v1 paths are the pass-through's, which needs a provider", async () => {
    for (const path of ["/nothing-here", "/v2/chat/completions", "/v1/logs/a/b"]) {
      const response = await call(gateway, "GET", path);
      expect(response.status, path).toBe(404);
      expectEnvelope(response.body, "not_found");
    }
    const passed = await call(gateway, "GET", "/v1/nothing-here");
    expect(passed.status).toBe(400);
    expectEnvelope(passed.body, "unknown_provider");
  });
});

describe("deeply nested JSON gets a 400, never a 500", () => {
  const deep = (levels: number): string => "[".repeat(levels) + "]".repeat(levels);
  const chatText = (extra: string) => `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hello"}],"foo":${extra}}`;

  it("refuses bodies nested past the limit on every JSON route, and accepts the limit", async () => {
    const printed = vi.spyOn(console, "error");
    const refused = [
      await chat(undefined, { rawBody: chatText(deep(20_000)) }),
      await chat(undefined, { rawBody: chatText(deep(128)) }),
      await call(gateway, "POST", "/v1/configs", { rawBody: `{"name":"deep","config":{"override_params":{"foo":${deep(20_000)}}}}` }),
      await call(gateway, "POST", "/v1/prompts", {
        rawBody: `{"name":"deep","model":"gpt-4o-mini","provider":"openai","messages":[{"role":"user","content":"hi"}],"hyperparameters":{"foo":${deep(20_000)}}}`,
      }),
    ];
    for (const response of refused) {
      expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBe(400);
      expectEnvelope(response.body, "invalid_request");
      expect(response.body.error.message).toContain("nested deeper than 128 levels");
    }
    // The body itself is one level, "foo" another: 126 more still fit.
    const atLimit = await chat(undefined, { rawBody: chatText(deep(126)) });
    expect(atLimit.status).toBe(200);
    const inline = await chat({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] }, {
      headers: { "x-gateway-config": `{"override_params":{"foo":${deep(2_000)}}}` },
    });
    expect(inline.status).toBe(400);
    expectEnvelope(inline.body, "invalid_request", "x-gateway-config");
    expect(printed).not.toHaveBeenCalled();
    printed.mockRestore();
    await stillServes();
  });

  it("shows a stored body too deep to serialise as its text", async () => {
    const answered = await chat({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] });
    await gateway.flushLogs();
    const id = answered.headers.get("x-gateway-log-id")!;
    const text = chatText(deep(50_000));
    await gateway.gateway.deps.store.db.updateTable("logs").set({ request_body: text }).where("id", "=", id).execute();
    const log = await call(gateway, "GET", `/v1/logs/${id}`);
    expect(log.status).toBe(200);
    expect(log.body.request.body).toBe(text);
  });
});
