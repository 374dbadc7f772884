import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { openaiContractProblems } from "./support/contract.ts";
import { call, startGateway, startUpstream, storedLog, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startRecordingUpstream, type RecordingUpstream } from "./support/recording-upstream.ts";

let gateway: RunningGateway;
let upstream: LLMock;
let recording: RecordingUpstream;
/** What the recording upstream answers next (an Anthropic message, error or stream). */
let nextAnswer: { status?: number; headers?: Record<string, string>; body: string } = { body: "{}" };

const MODEL = "claude-sonnet-4-5";

beforeAll(async () => {
  upstream = await startUpstream();
  // Registered first: the tool result turn still ends with the user's "weather claude".
  upstream.on({ toolResultContains: "it is 18C" }, { content: "It is 18C in Paris." });
  upstream.onMessage("plain claude", { content: "Hello from Claude.", usage: { input_tokens: 20, output_tokens: 5 } });
  upstream.onMessage("stream claude", { content: "One two three four five.", reasoning: "Count to five.", usage: { input_tokens: 11, output_tokens: 9 } });
  upstream.onMessage("weather claude", { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }], usage: { input_tokens: 30, output_tokens: 12 } });
  recording = await startRecordingUpstream(() => nextAnswer);
  gateway = await startGateway();
  // Compiles the official schemas once, outside the tests' time.
  openaiContractProblems("CreateChatCompletionResponse", {});
  openaiContractProblems("CreateChatCompletionStreamResponse", {});
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await recording?.close();
});

function claude(host: string): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: UPSTREAM_KEY,
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "anthropic", "x-gateway-custom-host": host },
  });
}

describe("Anthropic through the gateway with the official openai client", () => {
  it("translates a plain chat both ways, authorises with x-api-key, and logs tokens and cost", async () => {
    const { data, response } = await claude(`${upstream.url}/v1`)
      .chat.completions.create({ model: MODEL, messages: [{ role: "system", content: "Be warm." }, { role: "user", content: "plain claude" }], user: "u-1" })
      .withResponse();
    expect(openaiContractProblems("CreateChatCompletionResponse", data)).toEqual([]);
    expect(data.object).toBe("chat.completion");
    expect(data.choices[0]).toMatchObject({ message: { role: "assistant", content: "Hello from Claude." }, finish_reason: "stop" });
    expect(data.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 });
    expect(response.headers.get("x-gateway-provider")).toBe("anthropic");

    const seen = upstream.getLastRequest();
    expect(seen?.path).toBe("/v1/messages");
    // aimock redacts the key it saw; the vision test reads it from a recording upstream.
    expect(seen?.headers["x-api-key"]).toBeDefined();
    expect(seen?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(seen?.headers.authorization).toBeUndefined();
    // aimock read the system prompt from the top-level `system`.
    expect((seen?.body as { messages: unknown[] }).messages[0]).toEqual({ role: "system", content: "Be warm." });

    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ provider: "anthropic", model: MODEL, status: 200, promptTokens: 20, completionTokens: 5, totalTokens: 25 });
    // 20 input tokens at $3 and 5 output tokens at $15 per million.
    expect(record.costUsd).toBeCloseTo((20 * 3 + 5 * 15) / 1e6, 12);
  });

  it("streams chunks that satisfy the official schema, with reasoning, a finish chunk, usage and [DONE]", async () => {
    const { data: stream, response } = await claude(`${upstream.url}/v1`)
      .chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "stream claude" }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    let text = "";
    let reasoning = "";
    const finishes: string[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      expect(openaiContractProblems("CreateChatCompletionStreamResponse", chunk), JSON.stringify(chunk)).toEqual([]);
      const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string } | undefined;
      text += delta?.content ?? "";
      reasoning += delta?.reasoning_content ?? "";
      if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe("One two three four five.");
    expect(reasoning).toBe("Count to five.");
    expect(finishes).toEqual(["stop"]);
    expect(usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 9, total_tokens: 20 });
    expect((upstream.getLastRequest()?.body as { stream?: boolean }).stream).toBe(true);

    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ provider: "anthropic", stream: true, success: true, promptTokens: 11, completionTokens: 9 });
    expect(record.costUsd).toBeGreaterThan(0);
    expect(JSON.parse(record.responseBody!).choices[0].message).toMatchObject({ content: "One two three four five.", reasoning_content: "Count to five." });
  });

  it("logs a stream's usage even when the client did not ask for it", async () => {
    const response = await call(gateway, "POST", "/v1/chat/completions", {
      headers: { "x-gateway-provider": "anthropic", "x-gateway-custom-host": `${upstream.url}/v1`, authorization: `Bearer ${UPSTREAM_KEY}` },
      body: { model: MODEL, messages: [{ role: "user", content: "stream claude" }], stream: true },
    });
    const text = response.body as string;
    expect(text).not.toContain('"usage"');
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ promptTokens: 11, completionTokens: 9 });
    expect(record.costUsd).toBeGreaterThan(0);
  });

  it("calls tools, streamed and not, and sends the tool result back as a tool_result", async () => {
    const client = claude(`${upstream.url}/v1`);
    const tools: OpenAI.ChatCompletionTool[] = [
      { type: "function", function: { name: "get_weather", description: "Weather by city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } },
    ];
    const ask: OpenAI.ChatCompletionMessageParam = { role: "user", content: "weather claude" };
    const plain = await client.chat.completions.create({ model: MODEL, messages: [ask], tools, tool_choice: "auto" });
    expect(openaiContractProblems("CreateChatCompletionResponse", plain)).toEqual([]);
    expect(plain.choices[0]?.finish_reason).toBe("tool_calls");
    const toolCall = plain.choices[0]?.message.tool_calls?.[0];
    expect(toolCall).toMatchObject({ type: "function", function: { name: "get_weather" } });
    expect(JSON.parse((toolCall as OpenAI.ChatCompletionMessageFunctionToolCall).function.arguments)).toEqual({ city: "Paris" });
    // aimock read the tool's JSON Schema from `input_schema`.
    expect((upstream.getLastRequest()?.body as { tools: unknown[] }).tools[0]).toMatchObject({ function: { name: "get_weather", parameters: { required: ["city"] } } });

    const stream = await client.chat.completions.create({ model: MODEL, messages: [ask], tools, stream: true });
    const calls = new Map<number, { id?: string; name?: string; arguments: string }>();
    let finish: string | null = null;
    for await (const chunk of stream) {
      expect(openaiContractProblems("CreateChatCompletionStreamResponse", chunk), JSON.stringify(chunk)).toEqual([]);
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        const entry = calls.get(delta.index) ?? { arguments: "" };
        entry.id ??= delta.id;
        entry.name ??= delta.function?.name;
        entry.arguments += delta.function?.arguments ?? "";
        calls.set(delta.index, entry);
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe("tool_calls");
    expect([...calls.keys()]).toEqual([0]);
    expect(calls.get(0)).toMatchObject({ id: expect.stringMatching(/.+/), name: "get_weather" });
    expect(JSON.parse(calls.get(0)!.arguments)).toEqual({ city: "Paris" });

    const answer = await client.chat.completions.create({
      model: MODEL,
      messages: [ask, plain.choices[0]!.message, { role: "tool", tool_call_id: toolCall!.id, content: "it is 18C" }],
      tools,
    });
    expect(answer.choices[0]?.message.content).toBe("It is 18C in Paris.");
    const sent = upstream.getLastRequest()?.body as { messages: Array<{ role: string; tool_call_id?: string; tool_calls?: unknown[] }> };
    expect(sent.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(sent.messages[2]?.tool_call_id).toBe(toolCall!.id);
  });

  it("sends images as url and base64 sources (vision)", async () => {
    nextAnswer = {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id: "msg_vision",
        type: "message",
        role: "assistant",
        model: MODEL,
        content: [{ type: "text", text: "A cat and a dot." }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 1500, output_tokens: 7, cache_read_input_tokens: 1000, cache_creation_input_tokens: 200 },
      }),
    };
    const { data, response } = await claude(recording.url)
      .chat.completions.create({
        model: MODEL,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What is in these?" },
              { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
              { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
            ],
          },
        ],
      })
      .withResponse();
    expect(openaiContractProblems("CreateChatCompletionResponse", data)).toEqual([]);
    expect(data.choices[0]?.message.content).toBe("A cat and a dot.");
    expect(data.usage).toMatchObject({ prompt_tokens: 2700, prompt_tokens_details: { cached_tokens: 1000 } });
    const received = recording.received.at(-1)!;
    const sent = JSON.parse(received.body.toString("utf8"));
    expect(received.path).toBe("/v1/messages");
    expect(received.headers["x-api-key"]).toBe(UPSTREAM_KEY);
    expect(received.headers.authorization).toBeUndefined();
    expect(sent.messages[0].content).toEqual([
      { type: "text", text: "What is in these?" },
      { type: "image", source: { type: "url", url: "https://example.com/cat.png" } },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
    ]);
    expect(sent.max_tokens).toBe(4096);
    // 1,500 uncached at $3, 1,000 cache reads at $0.30, 200 cache writes at $3.75, 7 output at $15 per million.
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ promptTokens: 2700, cachedTokens: 1000 });
    expect(record.costUsd).toBeCloseTo((1500 * 3 + 1000 * 0.3 + 200 * 3.75 + 7 * 15) / 1e6, 12);
  });

  it("maps Anthropic's error body to the envelope, keeping 429 with Retry-After", async () => {
    nextAnswer = {
      status: 429,
      headers: { "content-type": "application/json", "retry-after": "12" },
      body: JSON.stringify({ type: "error", error: { type: "rate_limit_error", message: "Number of requests has exceeded your rate limit." }, request_id: "req_1" }),
    };
    const error = await claude(recording.url).chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const rateLimited = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(rateLimited.status).toBe(429);
    expect(rateLimited.headers?.get("retry-after")).toBe("12");
    expect(rateLimited.error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_error", message: "Number of requests has exceeded your rate limit." });
  });

  it("ends a stream that fails mid-way with the gateway's error event", async () => {
    const events = [
      ["message_start", { type: "message_start", message: { id: "msg_e", model: MODEL, usage: { input_tokens: 3, output_tokens: 1 } } }],
      ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Partial" } }],
      ["error", { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }],
    ] as const;
    nextAnswer = { headers: { "content-type": "text/event-stream" }, body: events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join("") };
    const response = await call(gateway, "POST", "/v1/chat/completions", {
      headers: { "x-gateway-provider": "anthropic", "x-gateway-custom-host": recording.url, authorization: `Bearer ${UPSTREAM_KEY}` },
      body: { model: MODEL, messages: [{ role: "user", content: "hi" }], stream: true },
    });
    const text = response.body as string;
    expect(text).toContain('"content":"Partial"');
    expect(text).toContain(`event: error\ndata: ${JSON.stringify({ error: { message: "Overloaded", type: "overloaded_error", code: "overloaded_error", param: null } })}`);
    expect(text).not.toContain("[DONE]");
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record.success).toBe(false);
  });

  it("selects Anthropic by a model's @anthropic prefix, and refuses operations it cannot serve", async () => {
    const client = new OpenAI({
      baseURL: `${gateway.url}/v1`,
      apiKey: UPSTREAM_KEY,
      maxRetries: 0,
      defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-custom-host": `${upstream.url}/v1` },
    });
    const { data, response } = await client.chat.completions.create({ model: `@anthropic/${MODEL}`, messages: [{ role: "user", content: "plain claude" }] }).withResponse();
    expect(data.choices[0]?.message.content).toBe("Hello from Claude.");
    expect(response.headers.get("x-gateway-provider")).toBe("anthropic");
    expect(upstream.getLastRequest()?.path).toBe("/v1/messages");

    const refused = await claude(`${upstream.url}/v1`).embeddings.create({ model: "voyage-3", input: "hi" }).catch((caught: unknown) => caught);
    expect(refused).toMatchObject({ status: 400 });
    expect((refused as Error).message).toContain("Anthropic");
  });
});

describe("the Responses API served by Anthropic through its chat translation", () => {
  it("answers plain and streamed Responses requests, with typed events in order, valid against the official schema, and logs usage and cost", async () => {
    openaiContractProblems("Response", {});
    openaiContractProblems("ResponseStreamEvent", {});
    const client = claude(`${upstream.url}/v1`);
    const { data, response } = await client.responses.create({ model: MODEL, instructions: "Be warm.", input: "plain claude" }).withResponse();
    expect(openaiContractProblems("Response", data)).toEqual([]);
    expect(data.output_text).toBe("Hello from Claude.");
    expect(upstream.getLastRequest()?.path).toBe("/v1/messages");
    const plainLog = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(plainLog).toMatchObject({ route: "createResponse", provider: "anthropic", status: 200, promptTokens: 20, completionTokens: 5 });
    expect(plainLog.costUsd).toBeGreaterThan(0);

    const stream = await client.responses.create({ model: MODEL, input: "stream claude", stream: true });
    const events: Array<{ type: string; sequence_number: number }> = [];
    for await (const event of stream) events.push(event);
    for (const event of events) expect(openaiContractProblems("ResponseStreamEvent", event), event.type).toEqual([]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events[0]!.type).toBe("response.created");
    const completed = events.at(-1) as unknown as { type: string; response: { output_text?: string; output: Array<{ content?: Array<{ text: string }> }>; usage: { output_tokens: number } } };
    expect(completed.type).toBe("response.completed");
    expect(completed.response.output[0]!.content![0]!.text).toBe("One two three four five.");
    expect(completed.response.usage.output_tokens).toBe(9);

    const refused = await client.responses.create({ model: MODEL, input: "plain claude", tools: [{ type: "file_search", vector_store_ids: ["vs_1"] }] }).catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((refused as InstanceType<typeof OpenAI.APIError>).param).toBe("tools.0");
  });
});

describe("Responses state the gateway keeps for Anthropic", () => {
  it("reads a kept response back by id and continues it with previous_response_id; store: false keeps nothing", async () => {
    const client = claude(`${upstream.url}/v1`);
    const first = await client.responses.create({ model: MODEL, input: "plain claude" });
    expect(first.id).toMatch(/^resp_/);
    // Kept once the answer is sent; the write is off the request's path.
    let read: unknown = null;
    for (let attempt = 0; attempt < 50 && read === null; attempt += 1) {
      read = await client.responses.retrieve(first.id).catch(() => null);
      if (read === null) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(read).toEqual(JSON.parse(JSON.stringify(first)));

    const follow = await client.responses.create({ model: MODEL, input: "stream claude", previous_response_id: first.id });
    expect(follow.output_text).toBe("One two three four five.");
    const sent = upstream.getLastRequest()?.body as { messages: Array<{ role: string; content: unknown }> };
    expect(sent.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(JSON.stringify(sent.messages[1]!.content)).toContain("Hello from Claude.");

    const stream = await client.responses.create({ model: MODEL, input: "stream claude", stream: true });
    let streamedId = "";
    for await (const event of stream) if (event.type === "response.completed") streamedId = event.response.id;
    let streamedRead: { output_text?: string } | null = null;
    for (let attempt = 0; attempt < 50 && streamedRead === null; attempt += 1) {
      streamedRead = await client.responses.retrieve(streamedId).catch(() => null);
      if (streamedRead === null) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(streamedRead?.output_text).toBe("One two three four five.");

    const unkept = await client.responses.create({ model: MODEL, input: "plain claude", store: false });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const missing = await client.responses.retrieve(unkept.id).catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>);
    expect(missing).toBeInstanceOf(OpenAI.APIError);
    expect((missing as InstanceType<typeof OpenAI.APIError>).status).toBe(404);
  });

  it("answers an id it does not keep with 404 in the envelope: read, read as a stream, delete, cancel, input items", async () => {
    const client = claude(`${upstream.url}/v1`);
    const requestsBefore = upstream.getRequests().length;
    const notFound = (error: unknown) => {
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
      expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ type: "not_found_error", code: "not_found", param: "response_id" });
    };
    notFound(await client.responses.retrieve("resp_never_kept").catch((error: unknown) => error));
    notFound(await client.responses.delete("resp_never_kept").catch((error: unknown) => error));
    notFound(await client.responses.cancel("resp_never_kept").catch((error: unknown) => error));
    notFound(await client.responses.inputItems.list("resp_never_kept").catch((error: unknown) => error));
    const headers = { "x-gateway-provider": "anthropic", "x-gateway-custom-host": `${upstream.url}/v1`, authorization: `Bearer ${UPSTREAM_KEY}` };
    const streamed = await call(gateway, "GET", "/v1/responses/resp_never_kept?stream=true", { headers });
    expect(streamed.status).toBe(404);
    expect(streamed.body.error).toMatchObject({ type: "not_found_error", code: "not_found" });
    expect(streamed.body.error.message).toContain("Anthropic keeps no responses");
    // Nothing went upstream: Anthropic has no responses to ask about.
    expect(upstream.getRequests().length).toBe(requestsBefore);
    const record = await storedLog(gateway, streamed.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ status: 404, provider: "anthropic" });
  });

  it("deletes a kept response, after which it is unknown; cancelling one or listing its input items is a 400", async () => {
    const client = claude(`${upstream.url}/v1`);
    const kept = await client.responses.create({ model: MODEL, input: "plain claude" });
    let read: unknown = null;
    for (let attempt = 0; attempt < 50 && read === null; attempt += 1) {
      read = await client.responses.retrieve(kept.id).catch(() => null);
      if (read === null) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(read).not.toBeNull();
    const cancelled = await client.responses.cancel(kept.id).catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>);
    expect(cancelled).toBeInstanceOf(OpenAI.BadRequestError);
    expect((cancelled as InstanceType<typeof OpenAI.APIError>).param).toBe("response_id");
    const listed = await client.responses.inputItems.list(kept.id).catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>);
    expect(listed).toBeInstanceOf(OpenAI.BadRequestError);
    const deleted = await call(gateway, "DELETE", `/v1/responses/${kept.id}`, { headers: { "x-gateway-provider": "anthropic", "x-gateway-custom-host": `${upstream.url}/v1`, authorization: `Bearer ${UPSTREAM_KEY}` } });
    expect(deleted).toMatchObject({ status: 200, body: { id: kept.id, object: "response", deleted: true } });
    const gone = await client.responses.retrieve(kept.id).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    const again = await client.responses.delete(kept.id).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(OpenAI.NotFoundError);
  });
});
