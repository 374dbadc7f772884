import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { request as httpRequest } from "node:http";
import { call, openaiClient, startGateway, startUpstream, upstreamHeaders, UPSTREAM_KEY, storedLog, type RunningGateway } from "./support/harness.ts";

let gateway: RunningGateway;
let upstream: LLMock;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("responses hello", { content: "Hello from the Responses operation" });
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
});

/** A raw request, so the path reaches the gateway exactly as written (fetch would normalise it). */
function rawGet(path: string, method = "GET"): Promise<{ status: number; body: any; allow: string | undefined }> {
  const url = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ host: url.hostname, port: url.port, path, method, headers: { ...upstreamHeaders(gateway, upstream) } }, (response) => {
      let text = "";
      response.on("data", (chunk: Buffer) => (text += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text), allow: response.headers.allow }));
    });
    sent.on("error", reject);
    sent.end();
  });
}

describe("the /v1/* pass-through to an OpenAI-format provider", () => {
  it("passes a GET with its query to the provider and logs it as the pass-through", async () => {
    // aimock's request journal: a path no operation of the gateway documents.
    const answered = await call(gateway, "GET", "/v1/_requests?limit=1", { headers: upstreamHeaders(gateway, upstream) });
    expect(answered.status).toBe(200);
    expect(Array.isArray(answered.body)).toBe(true);
    expect(answered.body.length).toBeLessThanOrEqual(1);
    const record = await storedLog(gateway, answered.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "passThrough", method: "GET", path: "/v1/_requests", provider: "openai", status: 200, success: true, requestBody: null });
  });

  it("sends the upstream key from Authorization", async () => {
    // This upstream accepts only the right key: a 200 proves the header arrived intact.
    const guarded = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent", auth: { apiKeys: [UPSTREAM_KEY] } });
    await guarded.start();
    try {
      const right = await openaiClient(gateway, guarded).models.list();
      expect(right.data.length).toBeGreaterThan(0);
      const wrong = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "sk-wrong", maxRetries: 0, defaultHeaders: upstreamHeaders(gateway, guarded) });
      await expect(wrong.models.list()).rejects.toMatchObject({ status: 401 });
    } finally {
      await guarded.stop();
    }
  });

  it("passes a JSON body once parsed: the model selects and is logged, the body is logged, a stream is relayed event by event", async () => {
    // aimock serves `/v1/messages` in Anthropic's format, with typed events. The gateway's own
    // `/v1/messages` translates to chat, so the upstream path is reached as `/v1/v1/messages`
    // (no route of its own) under the upstream's root as custom host.
    const messages = [{ role: "user", content: "responses hello" }];
    const rootHost = { "x-gateway-custom-host": `${upstream.url}/` };
    const streamed = await call(gateway, "POST", "/v1/v1/messages", { body: { model: "claude-sonnet-4", max_tokens: 64, stream: true, messages }, headers: { ...upstreamHeaders(gateway, upstream), ...rootHost } });
    expect(streamed.status).toBe(200);
    const events = String(streamed.body).split("\n\n").filter(Boolean);
    expect(events[0]).toMatch(/^event: message_start\n/);
    expect(events.at(-1)).toMatch(/^event: message_stop\n/);
    const text = events
      .filter((event) => event.startsWith("event: content_block_delta\n"))
      .map((event) => JSON.parse(event.split("\ndata: ")[1]!).delta.text)
      .join("");
    expect(text).toBe("Hello from the Responses operation");

    const headers = { ...upstreamHeaders(gateway, upstream), ...rootHost, "OpenAI-Beta": "responses=v1", "x-custom": "not passed" };
    const plain = await call(gateway, "POST", "/v1/v1/messages", { body: { model: "@openai/claude-sonnet-4", max_tokens: 64, messages }, headers });
    expect(plain.status).toBe(200);
    expect(plain.body.content[0].text).toBe("Hello from the Responses operation");
    const record = await storedLog(gateway, plain.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "passThrough", method: "POST", path: "/v1/v1/messages", provider: "openai", model: "claude-sonnet-4", status: 200 });
    expect(JSON.parse(record.requestBody!)).toMatchObject({ model: "@openai/claude-sonnet-4", messages });
    const received = upstream.getRequests().at(-1)!;
    expect(received.path).toBe("/v1/messages");
    expect(received.body).toMatchObject({ model: "claude-sonnet-4" });
    // Only the listed client headers go upstream; the gateway's own never do.
    expect(received.headers["openai-beta"]).toBe("responses=v1");
    expect(received.headers).not.toHaveProperty("x-custom");
    expect(Object.keys(received.headers).filter((name) => name.startsWith("x-gateway"))).toEqual([]);
  });

  it("keeps the upstream's error status and body in the error envelope", async () => {
    const missing = await call(gateway, "GET", "/v1/files/file-does-not-exist", { headers: upstreamHeaders(gateway, upstream) });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toHaveProperty("message");
  });

  it("never passes the gateway's own resource paths, dot segments or malformed JSON", async () => {
    for (const path of ["/v1/logs/a/b", "/v1/api-keys/a/b", "/v1/configs/a/b/c", "/v1/virtual-keys/x/y"]) {
      const answered = await call(gateway, "GET", path, { headers: upstreamHeaders(gateway, upstream) });
      expect(answered.status, path).toBe(404);
      expect(answered.body.error.code).toBe("not_found");
    }
    const before = upstream.getRequests().length;
    // Dot segments resolve before routing, to a path outside /v1 that nothing serves.
    for (const path of ["/v1/models/../../admin", "/v1/%2e%2e/admin", "/v1/models/%2e%2E/%2e%2e/x"]) {
      const answered = await rawGet(path);
      expect(answered.status, path).toBe(404);
    }
    for (const path of ["/v1/models/%2F..%2Fadmin", "/v1//models", "/v1/models/..%5cadmin"]) {
      const answered = await rawGet(path);
      expect(answered.status, path).toBe(400);
      // Named by the part that would leave /v1: the documented route's parameter, or the pass-through's path.
      expect(answered.body.error.code, path).toBe("invalid_request");
      expect(["path", "model"], path).toContain(answered.body.error.param);
    }
    const badJson = await call(gateway, "POST", "/v1/moderations", { rawBody: "{not json", headers: upstreamHeaders(gateway, upstream) });
    expect(badJson.status).toBe(400);
    expect(badJson.body.error.code).toBe("invalid_json");
    const deep = await call(gateway, "POST", "/v1/moderations", { rawBody: `${"[".repeat(200)}${"]".repeat(200)}`, headers: upstreamHeaders(gateway, upstream) });
    expect(deep.status).toBe(400);
    const badHeader = await call(gateway, "GET", "/v1/models", { headers: { ...upstreamHeaders(gateway, upstream), "x-gateway-request-timeout": "soon" } });
    expect(badHeader.status).toBe(400);
    expect(badHeader.body.error.param).toBe("x-gateway-request-timeout");
    expect(upstream.getRequests().length).toBe(before);
    const stillServing = await call(gateway, "GET", "/v1/models", { headers: upstreamHeaders(gateway, upstream) });
    expect(stillServing.status).toBe(200);
  });

  it("never passes a gateway resource path however it is cased, encoded or decorated", async () => {
    const before = upstream.getRequests().length;
    for (const path of ["/v1/Virtual-Keys", "/v1/VIRTUAL-KEYS", "/v1/virtual-keys.", "/v1/virtual-keys;x", "/v1/Configs", "/v1/API-KEYS", "/v1/LOGS/x", "/v1/logs%3Bx", "/v1/logs.json", "/v1/%6Cogs"]) {
      const answered = await call(gateway, "POST", path, { body: { key: "sk-must-stay-here" }, headers: upstreamHeaders(gateway, upstream) });
      expect(answered.status, path).toBe(404);
    }
    expect(upstream.getRequests().length).toBe(before);
  });

  it("sends only the methods upstream APIs use", async () => {
    const before = upstream.getRequests().length;
    const answered = await rawGet("/v1/models", "TRACE");
    expect(answered.status).toBe(405);
    expect(answered.body.error.code).toBe("method_not_allowed");
    expect(answered.allow).toBe("GET, HEAD, POST, PUT, PATCH, DELETE");
    expect(upstream.getRequests().length).toBe(before);
  });

  it("refuses a custom host with a query or fragment, which would swallow the path", async () => {
    for (const host of [`${upstream.url}/v1?x=`, `${upstream.url}/v1#x`]) {
      const answered = await call(gateway, "GET", "/v1/models", { headers: { ...upstreamHeaders(gateway, upstream), "x-gateway-custom-host": host } });
      expect(answered.status, host).toBe(400);
      expect(answered.body.error.param).toBe("x-gateway-custom-host");
    }
  });

  it("needs a gateway key and a provider", async () => {
    const noKey = await call(gateway, "GET", "/v1/models", { key: null, headers: { "x-gateway-provider": "openai" } });
    expect(noKey.status).toBe(401);
    const noProvider = await call(gateway, "GET", "/v1/_requests");
    expect(noProvider.status).toBe(400);
    expect(noProvider.body.error.code).toBe("unknown_provider");
  });
});
