/**
 * Google Gemini through the gateway: the official `openai` client speaks OpenAI to the gateway,
 * the gateway speaks Gemini's `generateContent` to aimock, and what comes back must satisfy the
 * official OpenAI schema.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { openaiContractProblems } from "./support/contract.ts";
import { startGateway, startUpstream, storedLog, type RunningGateway } from "./support/harness.ts";

const GEMINI_KEY = "AIza-test-gemini-key-0123456789";

let gateway: RunningGateway;
let upstream: LLMock;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.on({ toolResultContains: "21" }, { content: "It is 21 degrees in Paris.", usage: { promptTokenCount: 30, candidatesTokenCount: 8 } });
  upstream.onMessage("gemini plain", { content: "Bonjour!", usage: { promptTokenCount: 12, candidatesTokenCount: 4 } });
  upstream.onMessage("gemini stream", { content: "One two three four five six", usage: { promptTokenCount: 9, candidatesTokenCount: 6 } });
  upstream.onMessage("gemini weather", {
    toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris"}' }],
    usage: { promptTokenCount: 20, candidatesTokenCount: 5 },
  });
  gateway = await startGateway();
  // Compiling the official document takes a while: once, before the first test.
  expect(openaiContractProblems("CreateChatCompletionResponse", {})).not.toEqual([]);
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
});

function geminiClient(headers: Record<string, string> = { "x-gateway-provider": "gemini" }): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: GEMINI_KEY,
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-custom-host": `${upstream.url}/v1beta`, ...headers },
  });
}

const weatherTool: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  },
};

describe("Gemini chat completions through the gateway", () => {
  it("translates a plain completion, authorises with x-goog-api-key, and logs provider, tokens and cost", async () => {
    const { data, response } = await geminiClient()
      .chat.completions.create({ model: "gemini-2.5-flash", messages: [{ role: "system", content: "Be kind." }, { role: "user", content: "gemini plain" }] })
      .withResponse();
    expect(openaiContractProblems("CreateChatCompletionResponse", data)).toEqual([]);
    expect(data.choices[0]?.message.content).toBe("Bonjour!");
    expect(data.choices[0]?.finish_reason).toBe("stop");
    // aimock's answer names no modelVersion: the model asked for stands in.
    expect(data.model).toBe("gemini-2.5-flash");
    expect(data.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 });
    expect(response.headers.get("x-gateway-provider")).toBe("gemini");

    const seen = upstream.getLastRequest();
    expect(seen?.path).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    // aimock's journal redacts keys: the header is there, and the bearer header is not.
    expect(seen?.headers["x-goog-api-key"]).toBeDefined();
    expect(seen?.headers.authorization).toBeUndefined();
    // aimock read the Gemini body back into messages: the system instruction survived the trip.
    expect((seen?.body as { messages: unknown[] }).messages[0]).toEqual({ role: "system", content: "Be kind." });

    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ provider: "gemini", model: "gemini-2.5-flash", status: 200, success: true, promptTokens: 12, completionTokens: 4 });
    // gemini-2.5-flash: $0.30 in, $2.50 out per million tokens.
    expect(record.costUsd).toBeCloseTo((12 * 0.3 + 4 * 2.5) / 1e6, 12);
    expect(JSON.stringify(record)).not.toContain(GEMINI_KEY);
  });

  it("sends the client's key intact: an upstream that accepts only that key answers", async () => {
    const guarded = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent", auth: { apiKeys: [GEMINI_KEY] } });
    guarded.onMessage("gemini plain", { content: "Bonjour!" });
    await guarded.start();
    try {
      const client = (apiKey: string) =>
        new OpenAI({
          baseURL: `${gateway.url}/v1`,
          apiKey,
          maxRetries: 0,
          defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "gemini", "x-gateway-custom-host": `${guarded.url}/v1beta` },
        });
      const request = { model: "gemini-2.5-flash", messages: [{ role: "user" as const, content: "gemini plain" }] };
      await expect(client("AIza-wrong").chat.completions.create(request)).rejects.toMatchObject({ status: 401 });
      expect((await client(GEMINI_KEY).chat.completions.create(request)).choices[0]?.message.content).toBe("Bonjour!");
    } finally {
      await guarded.stop();
    }
  });

  it("selects Gemini from the @gemini/ model form alone", async () => {
    const { data, response } = await geminiClient({})
      .chat.completions.create({ model: "@gemini/gemini-2.5-pro", messages: [{ role: "user", content: "gemini plain" }] })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe("Bonjour!");
    expect(response.headers.get("x-gateway-provider")).toBe("gemini");
    expect(upstream.getLastRequest()?.path).toBe("/v1beta/models/gemini-2.5-pro:generateContent");
  });

  it("relays a stream as OpenAI chunks ending in a finish chunk, usage when asked, and [DONE]", async () => {
    const { data: stream, response } = await geminiClient()
      .chat.completions.create({
        model: "gemini-2.5-flash",
        messages: [{ role: "user", content: "gemini stream" }],
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    for (const chunk of chunks) expect(openaiContractProblems("CreateChatCompletionStreamResponse", chunk)).toEqual([]);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("One two three four five six");
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("stop");
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 6, total_tokens: 15 } });
    expect(upstream.getLastRequest()?.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");

    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ provider: "gemini", stream: true, success: true, promptTokens: 9, completionTokens: 6 });
    expect(record.costUsd).toBeCloseTo((9 * 0.3 + 6 * 2.5) / 1e6, 12);
    expect(JSON.parse(record.responseBody!).choices[0].message.content).toBe("One two three four five six");
  });

  it("logs a stream's usage even when the client did not ask for it, and never shows it to that client", async () => {
    const { data: stream, response } = await geminiClient()
      .chat.completions.create({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "gemini stream" }], stream: true })
      .withResponse();
    let sawUsage = false;
    for await (const chunk of stream) if (chunk.usage) sawUsage = true;
    expect(sawUsage).toBe(false);
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ promptTokens: 9, completionTokens: 6 });
  });

  it("calls a tool, then answers from its result, the call's name travelling back with the result", async () => {
    const client = geminiClient();
    const first = await client.chat.completions.create({
      model: "gemini-2.5-flash",
      messages: [{ role: "user", content: "gemini weather" }],
      tools: [weatherTool],
      tool_choice: "auto",
    });
    expect(openaiContractProblems("CreateChatCompletionResponse", first)).toEqual([]);
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(first.choices[0]?.finish_reason).toBe("tool_calls");
    expect(call?.type === "function" && call.function).toEqual({ name: "get_weather", arguments: '{"city":"Paris"}' });
    const declared = upstream.getLastRequest()?.body as { tools: { function: { name: string; parameters: unknown } }[] };
    expect(declared.tools[0]?.function).toMatchObject({ name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } });
    expect(declared.tools[0]?.function.parameters).not.toHaveProperty("additionalProperties");

    const second = await client.chat.completions.create({
      model: "gemini-2.5-flash",
      messages: [
        { role: "user", content: "gemini weather" },
        first.choices[0]!.message,
        { role: "tool", tool_call_id: call!.id, content: '{"temperature":21}' },
      ],
      tools: [weatherTool],
    });
    expect(second.choices[0]?.message.content).toBe("It is 21 degrees in Paris.");
    const replayed = (upstream.getLastRequest()?.body as { messages: { role: string; content: unknown; tool_calls?: { function: { name: string } }[] }[] }).messages;
    expect(replayed.map((message) => message.role)).toEqual(["user", "assistant", "tool"]);
    expect(replayed[1]?.tool_calls?.[0]?.function.name).toBe("get_weather");
    expect(JSON.parse(replayed[2]!.content as string)).toEqual({ temperature: 21 });
  });

  it("streams a tool call as contract-valid deltas finishing with tool_calls", async () => {
    const stream = await geminiClient().chat.completions.create({
      model: "gemini-2.5-flash",
      messages: [{ role: "user", content: "gemini weather" }],
      tools: [weatherTool],
      stream: true,
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    for (const chunk of chunks) expect(openaiContractProblems("CreateChatCompletionStreamResponse", chunk)).toEqual([]);
    const deltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(deltas).toEqual([{ index: 0, id: expect.stringMatching(/^call_/), type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }]);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("tool_calls");
  });

  it("answers a Google rate-limit error in the OpenAI envelope, keeping status and Retry-After", async () => {
    upstream.nextRequestError(429, { message: "Resource has been exhausted (e.g. check quota).", type: "RESOURCE_EXHAUSTED" });
    const failure = await geminiClient()
      .chat.completions.create({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "gemini plain" }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
    const error = failure as InstanceType<typeof OpenAI.RateLimitError>;
    expect(error.status).toBe(429);
    expect(error.headers?.get("retry-after")).toBe("1");
    expect(error.error).toEqual({ message: "Resource has been exhausted (e.g. check quota).", type: "rate_limit_error", code: "RESOURCE_EXHAUSTED", param: null });
  });
});
