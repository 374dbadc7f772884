import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { DEFAULT_WORKSPACE_ID } from "../src/control-plane/auth-context.ts";
import { call, startGateway, type RunningGateway } from "./support/harness.ts";
import { startRawUpstream, type RawUpstream } from "./support/raw-upstream.ts";

const RATE_HEADERS = {
  "retry-after": "7",
  "x-ratelimit-limit-requests": "500",
  "x-ratelimit-remaining-requests": "0",
  "x-ratelimit-reset-requests": "7s",
  "x-ratelimit-remaining-tokens": "1200",
};
const COMPLETION = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "gpt-4o-mini",
  choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop", logprobs: null }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
};
const NOT_JSON = "<html><body>upstream-internal-page secret-marker</body></html>";

let upstream: RawUpstream;
let gateway: RunningGateway;

beforeAll(async () => {
  upstream = await startRawUpstream((body, res) => {
    const prompt = String(body?.messages?.[0]?.content ?? "");
    const common = { ...RATE_HEADERS, "set-cookie": "upstream=1" };
    if (prompt === "limited") {
      res.writeHead(429, { ...common, "content-type": "application/json" });
      return res.end(JSON.stringify({ error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } }));
    }
    if (prompt === "not json") {
      res.writeHead(200, { ...common, "content-type": "application/json" });
      return res.end(NOT_JSON);
    }
    if (prompt === "array") {
      res.writeHead(200, { ...common, "content-type": "application/json" });
      return res.end("[1, 2]");
    }
    if (body?.stream) {
      res.writeHead(200, { ...common, "content-type": "text/event-stream" });
      const chunk = { id: "c", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta: { content: "hi" }, finish_reason: "stop" }] };
      return res.end(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`);
    }
    res.writeHead(200, { ...common, "content-type": "application/json" });
    res.end(JSON.stringify(COMPLETION));
  });
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

function client(): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: "sk-test",
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": upstream.url },
  });
}

const ask = (content: string) => ({ model: "gpt-4o-mini", messages: [{ role: "user" as const, content }] });

async function logOf(logId: string) {
  await gateway.flushLogs();
  return gateway.gateway.deps.store.logs.get(logId, DEFAULT_WORKSPACE_ID);
}

function expectRateHeaders(headers: Headers | undefined): void {
  for (const [name, value] of Object.entries(RATE_HEADERS)) expect(headers?.get(name), name).toBe(value);
  expect(headers?.get("set-cookie")).toBeNull();
}

describe("upstream rate-limit headers", () => {
  it("passes Retry-After and x-ratelimit-* on with an upstream 429", async () => {
    const error = await client().chat.completions.create(ask("limited")).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const apiError = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(apiError.code).toBe("rate_limit_exceeded");
    expectRateHeaders(apiError.headers);
  });

  it("passes them on with a success", async () => {
    const { data, response } = await client().chat.completions.create(ask("hello")).withResponse();
    expect(data.choices[0]?.message.content).toBe("hi");
    expectRateHeaders(response.headers);
  });

  it("passes them on with a stream", async () => {
    const { data: stream, response } = await client().chat.completions.create({ ...ask("hello"), stream: true }).withResponse();
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("hi");
    expectRateHeaders(response.headers);
  });
});

describe("an upstream 200 that is not a JSON object", () => {
  it.each(["not json", "array"])("answers 502 for %j without echoing the body, and logs a failure", async (prompt) => {
    const response = await call(gateway, "POST", "/v1/chat/completions", {
      body: ask(prompt),
      headers: { "x-gateway-provider": "openai", "x-gateway-custom-host": upstream.url, authorization: "Bearer sk-test" },
    });
    expect(response.status).toBe(502);
    expect(response.body.error).toMatchObject({ code: "upstream_error", type: "upstream_error" });
    expect(response.body.error.message).toContain("not a JSON object");
    expect(JSON.stringify(response.body)).not.toContain("secret-marker");
    // The upstream's rate-limit state still reaches the client with the gateway's own answer.
    expect(response.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    const record = await logOf(response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ status: 502, success: false, errorCode: "upstream_error" });
  });
});
