import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LLMock } from "@copilotkit/aimock";
import Anthropic from "@anthropic-ai/sdk";
import { startRecordingUpstream } from "./support/recording-upstream.ts";
import { call, startGateway, startUpstream, storedLog, UPSTREAM_KEY, upstreamHeaders, type RunningGateway } from "./support/harness.ts";

let gateway: RunningGateway;
let upstream: LLMock;

/** A one-pixel PNG. */
const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("plain hello", { content: "Hi from the chat side", usage: { prompt_tokens: 21, completion_tokens: 5, total_tokens: 26 } });
  upstream.onMessage("stream please", { content: "One two three four five six seven" }, { chunkSize: 4 });
  // Before the question's fixture: the follow-up still holds the question as its last user text.
  upstream.onToolResult("call_weather_1", { content: "It is sunny in Paris." });
  upstream.onMessage("weather in Paris", { toolCalls: [{ id: "call_weather_1", name: "get_weather", arguments: JSON.stringify({ city: "Paris" }) }] });
  upstream.onMessage("describe the picture", { content: "A single pixel." });
  upstream.onMessage("upstream fails", { content: "never sent" });
  upstream.onMessage("cut stream", { content: "alpha beta gamma delta epsilon zeta eta theta" }, { latency: 30, chunkSize: 5, disconnectAfterMs: 100 });
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
});

/** The official Anthropic client pointed at the gateway: its `apiKey` is the upstream key. */
function anthropicClient(headers: Record<string, string> = {}, apiKey = UPSTREAM_KEY): Anthropic {
  return new Anthropic({ baseURL: gateway.url, apiKey, maxRetries: 0, defaultHeaders: { ...upstreamHeaders(gateway, upstream), ...headers } });
}

/** The chat body the upstream last got. */
function lastChatBody(): Record<string, unknown> {
  return upstream.getLastRequest()?.body as Record<string, unknown>;
}

describe("POST /v1/messages with the official Anthropic client", () => {
  it("answers a plain message and logs route, provider, tokens and cost", async () => {
    const client = anthropicClient({ "x-gateway-metadata": JSON.stringify({ team: "anthropic-sdk" }) });
    const { data, response } = await client.messages
      .create({ model: "gpt-4o-mini", max_tokens: 64, system: "Answer briefly.", metadata: { user_id: "end-user-9" }, messages: [{ role: "user", content: "plain hello" }] })
      .withResponse();
    expect(data).toMatchObject({
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: "Hi from the chat side" }],
      stop_reason: "end_turn",
      usage: { input_tokens: 21, output_tokens: 5 },
    });
    expect(response.headers.get("x-gateway-provider")).toBe("openai");
    expect(upstream.getLastRequest()?.headers["x-gateway-api-key"]).toBeUndefined();
    expect(lastChatBody()).toMatchObject({
      model: "gpt-4o-mini",
      max_completion_tokens: 64,
      user: "end-user-9",
      messages: [
        { role: "system", content: "Answer briefly." },
        { role: "user", content: "plain hello" },
      ],
    });

    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "createMessage", provider: "openai", model: "gpt-4o-mini", status: 200, user: "end-user-9", promptTokens: 21, completionTokens: 5, totalTokens: 26 });
    expect(record.costUsd).toBeGreaterThan(0);
    // Logged as the client sent it and got it: Anthropic's formats, not the chat ones.
    expect(JSON.parse(record.requestBody!)).toMatchObject({ system: "Answer briefly.", max_tokens: 64 });
    expect(JSON.parse(record.responseBody!)).toMatchObject({ type: "message", content: [{ type: "text", text: "Hi from the chat side" }] });
    expect(JSON.stringify(record)).not.toContain(UPSTREAM_KEY);
  });

  it("streams a message: the SDK's assembled message is what was streamed, and the log holds it with usage", async () => {
    const client = anthropicClient();
    const stream = client.messages.stream({ model: "gpt-4o-mini", max_tokens: 64, messages: [{ role: "user", content: "stream please" }] });
    const types: string[] = [];
    let streamedText = "";
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") streamedText += event.delta.text;
    }
    const final = await stream.finalMessage();
    expect(streamedText).toBe("One two three four five six seven");
    expect(final.content).toEqual([{ type: "text", text: streamedText }]);
    expect(final.stop_reason).toBe("end_turn");
    expect(final.usage.output_tokens).toBeGreaterThan(0);
    expect(types[0]).toBe("message_start");
    expect(types.slice(-2)).toEqual(["message_delta", "message_stop"]);
    expect(types.filter((type) => type === "content_block_delta").length).toBeGreaterThan(2);
    expect(lastChatBody()).toMatchObject({ stream: true, stream_options: { include_usage: true } });

    const { response } = await stream.withResponse();
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "createMessage", stream: true, success: true, completionTokens: final.usage.output_tokens });
    expect(record.promptTokens).toBe(final.usage.input_tokens);
    expect(JSON.parse(record.responseBody!)).toMatchObject({ type: "message", content: [{ type: "text", text: streamedText }], stop_reason: "end_turn" });
  });

  it("round-trips a tool call: tool_use out, tool_result back in", async () => {
    const client = anthropicClient();
    const tools: Anthropic.Tool[] = [{ name: "get_weather", description: "Weather by city", input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }];
    const question: Anthropic.MessageParam = { role: "user", content: "weather in Paris" };
    const first = await client.messages.create({ model: "gpt-4o-mini", max_tokens: 64, tools, tool_choice: { type: "any" }, messages: [question] });
    expect(first.stop_reason).toBe("tool_use");
    expect(first.content).toEqual([{ type: "tool_use", id: "call_weather_1", name: "get_weather", input: { city: "Paris" } }]);
    expect(lastChatBody()).toMatchObject({
      tool_choice: "required",
      tools: [{ type: "function", function: { name: "get_weather", description: "Weather by city", parameters: tools[0]!.input_schema } }],
    });

    const second = await client.messages.create({
      model: "gpt-4o-mini",
      max_tokens: 64,
      tools,
      messages: [question, { role: "assistant", content: first.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: "call_weather_1", content: "sunny, 24°C" }] }],
    });
    expect(second.content).toEqual([{ type: "text", text: "It is sunny in Paris." }]);
    expect(lastChatBody().messages).toEqual([
      { role: "user", content: "weather in Paris" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_weather_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
      { role: "tool", tool_call_id: "call_weather_1", content: "sunny, 24°C" },
    ]);
  });

  it("streams a tool call as input_json_delta events the SDK assembles", async () => {
    const stream = anthropicClient().messages.stream({ model: "gpt-4o-mini", max_tokens: 64, messages: [{ role: "user", content: "weather in Paris" }], tools: [{ name: "get_weather", input_schema: { type: "object" } }] });
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe("tool_use");
    expect(final.content).toEqual([{ type: "tool_use", id: "call_weather_1", name: "get_weather", input: { city: "Paris" } }]);
  });

  it("sends an image as a data URL image part", async () => {
    const answer = await anthropicClient().messages.create({
      model: "gpt-4o-mini",
      max_tokens: 64,
      messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: PIXEL } }, { type: "text", text: "describe the picture" }] }],
    });
    expect(answer.content).toEqual([{ type: "text", text: "A single pixel." }]);
    expect(lastChatBody().messages).toEqual([
      { role: "user", content: [{ type: "image_url", image_url: { url: `data:image/png;base64,${PIXEL}` } }, { type: "text", text: "describe the picture" }] },
    ]);
  });

  it("maps an upstream error to the SDK's error class with the upstream's status, in Anthropic's shape", async () => {
    upstream.nextRequestError(429, { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded" });
    const error = await anthropicClient()
      .messages.create({ model: "gpt-4o-mini", max_tokens: 64, messages: [{ role: "user", content: "upstream fails" }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const apiError = error as InstanceType<typeof Anthropic.RateLimitError>;
    expect(apiError.status).toBe(429);
    expect(apiError.error).toMatchObject({ type: "error", error: { type: "rate_limit_error", message: expect.stringContaining("Rate limit reached") } });
    const record = await storedLog(gateway, apiError.headers?.get("x-gateway-log-id") ?? "");
    expect(record).toMatchObject({ route: "createMessage", status: 429, success: false, provider: "openai" });
    expect(JSON.parse(record.responseBody!)).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
  });

  it("serves a repeated message from the cache, in Anthropic's format, streamed or not", async () => {
    const client = anthropicClient({ "x-gateway-config": JSON.stringify({ cache: { mode: "simple", max_age: 60 } }), "x-gateway-cache-namespace": `messages-${Date.now()}` });
    const params = { model: "gpt-4o-mini", max_tokens: 64, messages: [{ role: "user" as const, content: "plain hello" }] };
    const first = await client.messages.create(params).withResponse();
    const second = await client.messages.create(params).withResponse();
    expect([first.response.headers.get("x-gateway-cache-status"), second.response.headers.get("x-gateway-cache-status")]).toEqual(["MISS", "HIT"]);
    expect(second.data).toEqual(first.data);
    const streamed = async () => {
      const stream = client.messages.stream({ ...params, temperature: 0.5 });
      const message = await stream.finalMessage();
      return { message, status: (await stream.withResponse()).response.headers.get("x-gateway-cache-status") };
    };
    const missed = await streamed();
    const hit = await streamed();
    expect([missed.status, hit.status]).toEqual(["MISS", "HIT"]);
    expect(hit.message).toEqual(missed.message);
  });

  it("ends a stream cut upstream with an Anthropic error event, which the SDK raises", async () => {
    const stream = anthropicClient().messages.stream({ model: "gpt-4o-mini", max_tokens: 64, messages: [{ role: "user", content: "cut stream" }] });
    let text = "";
    stream.on("text", (delta) => {
      text += delta;
    });
    const error = await stream.finalMessage().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: "error", error: { type: "api_error", message: expect.stringContaining("OpenAI") } });
    expect(text.length).toBeGreaterThan(0);
    const { response } = await stream.withResponse();
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "createMessage", stream: true, success: false });
    expect(record.errorCode).toMatch(/^upstream_/);
  });

  it("refuses a bad body with 400 in Anthropic's shape, naming the field", async () => {
    const client = anthropicClient();
    const missing = await client.messages
      // max_tokens is required by the Messages API.
      .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "plain hello" }] } as unknown as Anthropic.MessageCreateParamsNonStreaming)
      .catch((caught: unknown) => caught);
    expect(missing).toBeInstanceOf(Anthropic.BadRequestError);
    expect((missing as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ type: "error", error: { type: "invalid_request_error", message: expect.stringContaining("max_tokens") } });

    const badRole = await call(gateway, "POST", "/v1/messages", { body: { model: "gpt-4o-mini", max_tokens: 5, messages: [{ role: "system", content: "x" }] }, headers: upstreamHeaders(gateway, upstream) });
    expect(badRole.status).toBe(400);
    expect(badRole.body).toMatchObject({ type: "error", error: { type: "invalid_request_error", message: expect.stringContaining("messages.0.role") } });
    expect(badRole.body.request_id).toBe(badRole.headers.get("x-gateway-log-id"));

    const serverTool = await call(gateway, "POST", "/v1/messages", {
      body: { model: "gpt-4o-mini", max_tokens: 5, messages: [{ role: "user", content: "plain hello" }], tools: [{ type: "web_search_20250305", name: "web_search" }] },
      headers: upstreamHeaders(gateway, upstream),
    });
    expect(serverTool.status).toBe(400);
    expect(serverTool.body.error.message).toContain("Server tools");

    const record = await storedLog(gateway, serverTool.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "createMessage", status: 400 });
    expect(JSON.parse(record.responseBody!)).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
  });

  it("sends the SDK's apiKey upstream, or x-api-key when no Authorization comes, and never a gateway key", async () => {
    // This upstream accepts only the right key: a 200 proves the key arrived intact.
    const guarded = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent", auth: { apiKeys: [UPSTREAM_KEY] } });
    guarded.onMessage("plain hello", { content: "Hi there!" });
    await guarded.start();
    try {
      const headers = upstreamHeaders(gateway, guarded);
      const viaSdk = new Anthropic({ baseURL: gateway.url, apiKey: UPSTREAM_KEY, maxRetries: 0, defaultHeaders: headers });
      const answer = await viaSdk.messages.create({ model: "gpt-4o-mini", max_tokens: 5, messages: [{ role: "user", content: "plain hello" }] });
      expect(answer.content).toEqual([{ type: "text", text: "Hi there!" }]);
      const wrong = new Anthropic({ baseURL: gateway.url, apiKey: "sk-wrong", maxRetries: 0, defaultHeaders: headers });
      await expect(wrong.messages.create({ model: "gpt-4o-mini", max_tokens: 5, messages: [{ role: "user", content: "plain hello" }] })).rejects.toBeInstanceOf(Anthropic.AuthenticationError);

      const body = { model: "gpt-4o-mini", max_tokens: 5, messages: [{ role: "user", content: "plain hello" }] };
      const viaHeader = await call(gateway, "POST", "/v1/messages", { body, headers: { ...headers, "x-api-key": UPSTREAM_KEY } });
      expect(viaHeader.status).toBe(200);
      expect(viaHeader.body.content).toEqual([{ type: "text", text: "Hi there!" }]);

      const requestsBefore = guarded.getRequests().length;
      const leaked = await new Anthropic({ baseURL: gateway.url, apiKey: gateway.adminKey, maxRetries: 0, defaultHeaders: headers })
        .messages.create({ model: "gpt-4o-mini", max_tokens: 5, messages: [{ role: "user", content: "plain hello" }] })
        .catch((caught: unknown) => caught);
      expect(leaked).toBeInstanceOf(Anthropic.BadRequestError);
      expect((leaked as InstanceType<typeof Anthropic.BadRequestError>).message).toContain("x-gateway-api-key");
      const inHeader = await call(gateway, "POST", "/v1/messages", { body, headers: { ...headers, "x-api-key": "gw_someone_elses_key" } });
      expect(inHeader.status).toBe(400);
      expect(inHeader.body.error.message).toContain("x-api-key holds a gateway key");
      expect(guarded.getRequests().length).toBe(requestsBefore);
    } finally {
      await guarded.stop();
    }
  });

  it("answers count_tokens with 400 naming an OpenAI-format provider", async () => {
    const error = await anthropicClient()
      .messages.countTokens({ model: "gpt-4o-mini", messages: [{ role: "user", content: "plain hello" }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ type: "error", error: { type: "invalid_request_error", message: expect.stringContaining("OpenAI") } });
  });

  it("passes count_tokens to an Anthropic upstream as the client sent it, with the key as x-api-key", async () => {
    const recorder = await startRecordingUpstream(() => ({ input_tokens: 14 }));
    try {
      const client = new Anthropic({
        baseURL: gateway.url,
        apiKey: UPSTREAM_KEY,
        maxRetries: 0,
        defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "anthropic", "x-gateway-custom-host": recorder.url },
      });
      const body = { model: "claude-sonnet-4-5", messages: [{ role: "user" as const, content: "plain hello" }] };
      expect(await client.messages.countTokens(body)).toEqual({ input_tokens: 14 });
      const sent = recorder.received.at(-1)!;
      expect(sent.method).toBe("POST");
      expect(sent.path.split("?")[0]).toBe("/v1/messages/count_tokens");
      expect(JSON.parse(sent.body.toString())).toEqual(body);
      expect(sent.headers["x-api-key"]).toBe(UPSTREAM_KEY);
    } finally {
      await recorder.close();
    }
  });
});
