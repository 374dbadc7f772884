import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { DEFAULT_WORKSPACE_ID } from "../src/control-plane/auth-context.ts";
import { openaiClient, startGateway, startUpstream, UPSTREAM_KEY, upstreamHeaders, type RunningGateway } from "./support/harness.ts";

let gateway: RunningGateway;
let upstream: LLMock;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("plain hello", { content: "Hi there!", usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 } });
  upstream.onMessage("stream please", { content: "One two three four five six" });
  upstream.onMessage("weather", { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] });
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
});

async function storedLog(logId: string) {
  await gateway.flushLogs();
  const record = await gateway.gateway.deps.store.logs.get(logId, DEFAULT_WORKSPACE_ID);
  expect(record).toBeDefined();
  return record!;
}

describe("chat completions through the official openai client", () => {
  it("proxies a plain completion and logs tokens, cost, user and metadata", async () => {
    const client = openaiClient(gateway, upstream, {
      "x-gateway-metadata": JSON.stringify({ team: "search", env: "test" }),
      "x-gateway-trace-id": "trace-plain-1",
    });
    const { data, response } = await client.chat.completions
      .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "plain hello" }], user: "end-user-7" })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe("Hi there!");
    expect(response.headers.get("x-gateway-trace-id")).toBe("trace-plain-1");
    expect(response.headers.get("x-gateway-provider")).toBe("openai");
    const logId = response.headers.get("x-gateway-log-id");
    expect(logId).toMatch(/^[0-9a-f-]{36}$/);

    const record = await storedLog(logId!);
    expect(record).toMatchObject({
      provider: "openai",
      model: "gpt-4o-mini",
      status: 200,
      success: true,
      stream: false,
      user: "end-user-7",
      metadata: { team: "search", env: "test" },
      traceId: "trace-plain-1",
      promptTokens: 12,
      completionTokens: 4,
      totalTokens: 16,
    });
    // gpt-4o-mini is priced in the table: 12 input and 4 output tokens cost more than nothing.
    expect(record.costUsd).toBeGreaterThan(0);
    expect(JSON.parse(record.requestBody!)).toMatchObject({ model: "gpt-4o-mini", user: "end-user-7" });
    expect(JSON.parse(record.responseBody!).choices[0].message.content).toBe("Hi there!");
    expect(record.latencyMs).toBeGreaterThan(0);
  });

  it("forwards the upstream key and organisation/project headers, and never logs them", async () => {
    // This upstream accepts only the right key: a 200 proves the Authorization header arrived intact.
    const guarded = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent", auth: { apiKeys: [UPSTREAM_KEY] } });
    guarded.onMessage("plain hello", { content: "Hi there!" });
    await guarded.start();
    const wrongKey = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "sk-wrong", maxRetries: 0, defaultHeaders: upstreamHeaders(gateway, guarded) });
    await expect(wrongKey.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "plain hello" }] })).rejects.toMatchObject({ status: 401 });
    const rightKey = openaiClient(gateway, guarded);
    const accepted = await rightKey.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "plain hello" }] });
    expect(accepted.choices[0]?.message.content).toBe("Hi there!");
    await guarded.stop();

    const client = openaiClient(gateway, upstream, {
      "x-gateway-upstream-organization": "org-abc123",
      "x-gateway-upstream-project": "proj_xyz789",
    });
    const { response } = await client.chat.completions
      .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "plain hello" }] })
      .withResponse();
    const seen = upstream.getLastRequest();
    expect(seen?.headers["openai-organization"]).toBe("org-abc123");
    expect(seen?.headers["openai-project"]).toBe("proj_xyz789");
    expect(seen?.headers["x-gateway-api-key"]).toBeUndefined();

    // Sent without a trace id, the request is its own trace, named by its log id.
    expect(response.headers.get("x-gateway-trace-id")).toBe(response.headers.get("x-gateway-log-id"));
    const record = await storedLog(response.headers.get("x-gateway-log-id")!);
    const everything = JSON.stringify(record);
    expect(everything).not.toContain(UPSTREAM_KEY);
    expect(everything).not.toContain(gateway.adminKey);
  });

  it("relays a stream chunk by chunk and logs the assembled response with usage", async () => {
    const client = openaiClient(gateway, upstream);
    const { data: stream, response } = await client.chat.completions
      .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "stream please" }], stream: true })
      .withResponse();
    let text = "";
    let chunks = 0;
    let sawUsage = false;
    for await (const chunk of stream) {
      chunks += 1;
      text += chunk.choices[0]?.delta.content ?? "";
      if (chunk.usage) sawUsage = true;
    }
    expect(text).toBe("One two three four five six");
    expect(chunks).toBeGreaterThan(2);
    // The gateway asked for the usage chunk for itself; the client did not ask, so it never sees it.
    expect(sawUsage).toBe(false);
    const sentUpstream = upstream.getLastRequest()?.body as { stream_options?: { include_usage?: boolean } };
    expect(sentUpstream.stream_options?.include_usage).toBe(true);

    const record = await storedLog(response.headers.get("x-gateway-log-id")!);
    expect(record.stream).toBe(true);
    expect(record.success).toBe(true);
    expect(record.completionTokens).toBeGreaterThan(0);
    expect(record.timeToFirstTokenMs).not.toBeNull();
    expect(JSON.parse(record.responseBody!).choices[0].message.content).toBe("One two three four five six");
  });

  it("keeps the usage chunk when the client asks for it", async () => {
    const client = openaiClient(gateway, upstream);
    const stream = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "stream please" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let usageTokens = 0;
    for await (const chunk of stream) if (chunk.usage) usageTokens = chunk.usage.total_tokens;
    expect(usageTokens).toBeGreaterThan(0);
  });

  it("proxies tool calls, plain and streamed", async () => {
    const client = openaiClient(gateway, upstream);
    const tools = [
      {
        type: "function" as const,
        function: { name: "get_weather", description: "Weather of a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
      },
    ];
    const plain = await client.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "weather in Paris?" }],
      tools,
    });
    const toolCall = plain.choices[0]?.message.tool_calls?.[0];
    expect(toolCall?.type === "function" && toolCall.function.name).toBe("get_weather");
    expect(toolCall?.type === "function" && JSON.parse(toolCall.function.arguments)).toEqual({ city: "Paris" });

    const stream = await client.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "weather in Paris?" }],
      tools,
      stream: true,
    });
    let name = "";
    let args = "";
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        name += call.function?.name ?? "";
        args += call.function?.arguments ?? "";
      }
    }
    expect(name).toBe("get_weather");
    expect(JSON.parse(args)).toEqual({ city: "Paris" });
  });

  it("selects the provider from the model form @provider/model and strips the prefix", async () => {
    const client = openaiClient(gateway, upstream, { "x-gateway-provider": "" });
    const result = await client.chat.completions.create({
      model: "@openai/gpt-4o-mini",
      messages: [{ role: "user", content: "plain hello" }],
    });
    expect(result.choices[0]?.message.content).toBe("Hi there!");
    expect((upstream.getLastRequest()?.body as { model?: string }).model).toBe("gpt-4o-mini");
  });

  it("passes unknown body fields upstream untouched", async () => {
    const client = openaiClient(gateway, upstream);
    await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "developer", content: "Be brief." }, { role: "user", content: "plain hello" }],
      // A field this gateway has never heard of.
      ...({ future_field: { nested: [1, 2, 3] } } as object),
    } as never);
    expect((upstream.getLastRequest()?.body as { future_field?: unknown }).future_field).toEqual({ nested: [1, 2, 3] });
  });

  it("sends and logs the client's body exactly as written when nothing changes it", async () => {
    // Key order a schema parse would change (declared fields first) shows whether the bytes were re-serialised.
    const raw = '{"temperature":0.5,"messages":[{"content":"plain hello","role":"user"}],"x_first":1,"model":"gpt-4o-mini"}';
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { ...upstreamHeaders(gateway, upstream), "content-type": "application/json" },
      body: raw,
    });
    expect(response.status).toBe(200);
    const seen = upstream.getLastRequest()?.body as Record<string, unknown>;
    // aimock adds its own `_`-prefixed bookkeeping fields to what it records.
    expect(Object.keys(seen).filter((key) => !key.startsWith("_"))).toEqual(["temperature", "messages", "x_first", "model"]);
    expect(Object.keys((seen.messages as object[])[0] as object)).toEqual(["content", "role"]);
    const record = await storedLog(response.headers.get("x-gateway-log-id")!);
    expect(record.requestBody).toBe(raw);
  });

  it("re-serialises the body only when the gateway changes it (the @provider/ prefix)", async () => {
    const raw = '{"messages":[{"role":"user","content":"plain hello"}],"model":"@openai/gpt-4o-mini"}';
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { ...upstreamHeaders(gateway, upstream), "x-gateway-provider": "", "content-type": "application/json" },
      body: raw,
    });
    expect(response.status).toBe(200);
    expect((upstream.getLastRequest()?.body as { model?: string }).model).toBe("gpt-4o-mini");
    // The log keeps what the client sent.
    expect((await storedLog(response.headers.get("x-gateway-log-id")!)).requestBody).toBe(raw);
  });
});
