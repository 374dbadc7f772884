/**
 * Google's format in: the official `@google/genai` client, given the gateway as its base URL,
 * reaches an OpenAI-format provider, Anthropic, Bedrock and Gemini through the Gemini API's
 * methods (aimock speaks every one of these formats), logged, priced, cached, limited and
 * refused as every operation is, its errors in Google's shape.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { ApiError, FunctionCallingConfigMode, GoogleGenAI, Type, type Content, type FunctionDeclaration, type GenerateContentResponse } from "@google/genai";
import { call, startGateway, startUpstream, storedLog, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startRecordingUpstream, type RecordingUpstream } from "./support/recording-upstream.ts";

const BEDROCK_MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0";
const AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY";

let gateway: RunningGateway;
let upstream: LLMock;
/** Answers embeddings with usage (aimock reports none) and Gemini's token counts (aimock has no such method). */
let recording: RecordingUpstream;

beforeAll(async () => {
  upstream = await startUpstream();
  // Registered first: a follow-up still ends with the question's user text.
  upstream.on({ toolResultContains: "21C" }, { content: "It is 21C in Paris." });
  upstream.onMessage("openai hello", { content: "Hi from the chat side", usage: { prompt_tokens: 21, completion_tokens: 5, total_tokens: 26 } });
  upstream.onMessage("openai stream", { content: "One two three four five six seven", usage: { prompt_tokens: 9, completion_tokens: 7, total_tokens: 16 } }, { chunkSize: 4 });
  upstream.onMessage("openai weather", { toolCalls: [{ id: "call_weather_1", name: "get_weather", arguments: JSON.stringify({ city: "Paris" }) }], usage: { prompt_tokens: 30, completion_tokens: 8, total_tokens: 38 } });
  upstream.onMessage("openai names", { content: '{"names":["Ada","Grace"]}' });
  upstream.onMessage("openai fails", { content: "never sent" });
  upstream.onMessage("openai cut", { content: "alpha beta gamma delta epsilon zeta eta theta" }, { latency: 30, chunkSize: 5, disconnectAfterMs: 100 });
  upstream.onMessage("anthropic hello", { content: "Hello from Claude.", usage: { input_tokens: 20, output_tokens: 5 } });
  upstream.onMessage("anthropic stream", { content: "Claude streams five words.", usage: { input_tokens: 11, output_tokens: 9 } });
  upstream.onMessage("anthropic weather", { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }], usage: { input_tokens: 30, output_tokens: 12 } });
  upstream.onMessage("bedrock hello", { content: "Hello from Bedrock!", usage: { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 } });
  upstream.onMessage("bedrock stream", { content: "Bedrock streams five words", usage: { prompt_tokens: 9, completion_tokens: 7, total_tokens: 16 } });
  upstream.onMessage("bedrock weather", { toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris"}' }], usage: { prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 } });
  upstream.onMessage("gemini hello", { content: "Bonjour from Gemini", usage: { promptTokenCount: 12, candidatesTokenCount: 4 } });
  recording = await startRecordingUpstream((request) => {
    if (request.path.includes(":countTokens")) return { totalTokens: 7 };
    const body = JSON.parse(request.body.toString()) as { input: string | string[]; model: string };
    const inputs = Array.isArray(body.input) ? body.input : [body.input];
    return { object: "list", model: body.model, data: inputs.map((_, index) => ({ object: "embedding", index, embedding: [index + 0.25, -0.5] })), usage: { prompt_tokens: 6 * inputs.length, total_tokens: 6 * inputs.length } };
  });
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await recording?.close();
});

/** The official Google client pointed at the gateway: its `apiKey` is the upstream key, the gateway's headers ride along. */
function genai(headers: Record<string, string>, apiKey = UPSTREAM_KEY): GoogleGenAI {
  return new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gateway.url, headers: { "x-gateway-api-key": gateway.adminKey, ...headers } } });
}

const openaiTarget = (): Record<string, string> => ({ "x-gateway-provider": "openai", "x-gateway-custom-host": `${upstream.url}/v1` });
const anthropicTarget = (): Record<string, string> => ({ "x-gateway-provider": "anthropic", "x-gateway-custom-host": `${upstream.url}/v1` });
const geminiTarget = (host = `${upstream.url}/v1beta`): Record<string, string> => ({ "x-gateway-provider": "gemini", "x-gateway-custom-host": host });
const bedrockTarget = (): Record<string, string> => ({
  "x-gateway-provider": "bedrock",
  "x-gateway-custom-host": upstream.url,
  "x-gateway-aws-access-key-id": "AKIAIOSFODNN7EXAMPLE",
  "x-gateway-aws-secret-access-key": AWS_SECRET,
  "x-gateway-aws-region": "us-east-1",
});

/** The body the upstream last got, as aimock reads it (in chat completions' terms whatever the format). */
function lastUpstreamBody(): Record<string, unknown> {
  return upstream.getLastRequest()?.body as Record<string, unknown>;
}

function logIdOf(response: { sdkHttpResponse?: { headers?: Record<string, string> } }): string {
  return response.sdkHttpResponse!.headers!["x-gateway-log-id"]!;
}

const weather: FunctionDeclaration = {
  name: "get_weather",
  description: "Weather by city",
  parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING, description: "The city" } }, required: ["city"] },
};

/** A streamed answer read whole: its text, its chunks, and the last chunk (which holds the finish reason and usage). */
async function streamed(stream: AsyncGenerator<GenerateContentResponse>): Promise<{ text: string; chunks: GenerateContentResponse[]; last: GenerateContentResponse }> {
  const chunks: GenerateContentResponse[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  // Read from the parts: the SDK's `text` warns on a chunk that holds a function call.
  const text = chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []).map((part) => part.text ?? "").join("");
  return { text, chunks, last: chunks.at(-1)! };
}

/** The error a call rejects with, which must be the SDK's `ApiError`. */
async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe("generateContent to an OpenAI-format target", () => {
  it("answers plain content and logs route, provider, tokens and cost, in Google's format", async () => {
    const answer = await genai(openaiTarget()).models.generateContent({
      model: "gpt-4o-mini",
      contents: "openai hello",
      config: { systemInstruction: "Answer briefly.", temperature: 0.3, maxOutputTokens: 64, stopSequences: ["END"], safetySettings: [] },
    });
    expect(answer.text).toBe("Hi from the chat side");
    expect(answer.candidates?.[0]).toMatchObject({ finishReason: "STOP", content: { role: "model", parts: [{ text: "Hi from the chat side" }] } });
    expect(answer.usageMetadata).toEqual({ promptTokenCount: 21, candidatesTokenCount: 5, totalTokenCount: 26 });
    expect(answer.modelVersion).toBe("gpt-4o-mini");
    expect(answer.responseId).toBeTruthy();
    expect(answer.sdkHttpResponse?.headers?.["x-gateway-provider"]).toBe("openai");
    expect(lastUpstreamBody()).toMatchObject({
      model: "gpt-4o-mini",
      temperature: 0.3,
      max_completion_tokens: 64,
      stop: ["END"],
      messages: [
        { role: "system", content: "Answer briefly." },
        { role: "user", content: "openai hello" },
      ],
    });
    expect(lastUpstreamBody().safetySettings).toBeUndefined();
    // The SDK's key went upstream as the target's bearer key; the gateway's never did.
    expect(upstream.getLastRequest()?.headers["x-gateway-api-key"]).toBeUndefined();
    expect(upstream.getLastRequest()?.headers["x-goog-api-key"]).toBeUndefined();

    const record = await storedLog(gateway, logIdOf(answer));
    expect(record).toMatchObject({ route: "generateContent", provider: "openai", model: "gpt-4o-mini", status: 200, success: true, promptTokens: 21, completionTokens: 5, totalTokens: 26 });
    expect(record.costUsd).toBeGreaterThan(0);
    // Logged as the client sent it and got it: Google's format, not the chat one.
    expect(JSON.parse(record.requestBody!)).toMatchObject({ contents: [{ role: "user", parts: [{ text: "openai hello" }] }], systemInstruction: { parts: [{ text: "Answer briefly." }] } });
    expect(JSON.parse(record.responseBody!)).toMatchObject({ candidates: [{ content: { parts: [{ text: "Hi from the chat side" }] }, finishReason: "STOP" }] });
    expect(JSON.stringify(record)).not.toContain(UPSTREAM_KEY);
  });

  it("streams content as Google's server-sent events: new parts each, finishReason and usage last, and logs the whole", async () => {
    const { text, chunks, last } = await streamed(await genai(openaiTarget()).models.generateContentStream({ model: "gpt-4o-mini", contents: "openai stream" }));
    expect(text).toBe("One two three four five six seven");
    expect(chunks.length).toBeGreaterThan(3);
    expect(last.candidates?.[0]?.finishReason).toBe("STOP");
    expect(last.usageMetadata).toEqual({ promptTokenCount: 9, candidatesTokenCount: 7, totalTokenCount: 16 });
    expect(chunks.slice(0, -1).every((chunk) => chunk.candidates?.[0]?.finishReason === undefined)).toBe(true);
    expect(lastUpstreamBody()).toMatchObject({ stream: true, stream_options: { include_usage: true } });

    const record = await storedLog(gateway, logIdOf(last));
    expect(record).toMatchObject({ route: "streamGenerateContent", provider: "openai", stream: true, success: true, promptTokens: 9, completionTokens: 7 });
    expect(record.costUsd).toBeGreaterThan(0);
    expect(JSON.parse(record.responseBody!)).toMatchObject({ candidates: [{ content: { parts: [{ text }] }, finishReason: "STOP" }], usageMetadata: { totalTokenCount: 16 } });
  });

  it("round-trips a function call: functionCall out, functionResponse back in, plain and streamed", async () => {
    const client = genai(openaiTarget());
    const question: Content = { role: "user", parts: [{ text: "openai weather in Paris" }] };
    const config = { tools: [{ functionDeclarations: [weather] }], toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } } };
    const first = await client.models.generateContent({ model: "gpt-4o-mini", contents: [question], config });
    expect(first.functionCalls).toEqual([{ id: "call_weather_1", name: "get_weather", args: { city: "Paris" } }]);
    expect(first.candidates?.[0]?.finishReason).toBe("STOP");
    expect(lastUpstreamBody()).toMatchObject({
      tool_choice: "required",
      tools: [{ type: "function", function: { name: "get_weather", description: "Weather by city", parameters: { type: "object", properties: { city: { type: "string", description: "The city" } }, required: ["city"] } } }],
    });

    const second = await client.models.generateContent({
      model: "gpt-4o-mini",
      contents: [question, first.candidates![0]!.content!, { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { output: "21C, sunny" } } }] }],
      config: { tools: [{ functionDeclarations: [weather] }] },
    });
    expect(second.text).toBe("It is 21C in Paris.");
    expect(lastUpstreamBody().messages).toEqual([
      { role: "user", content: "openai weather in Paris" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_weather_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
      { role: "tool", tool_call_id: "call_weather_1", content: '{"output":"21C, sunny"}' },
    ]);

    const { chunks, last } = await streamed(await client.models.generateContentStream({ model: "gpt-4o-mini", contents: [question], config }));
    expect(chunks.flatMap((chunk) => chunk.functionCalls ?? [])).toEqual([{ id: "call_weather_1", name: "get_weather", args: { city: "Paris" } }]);
    expect(last.candidates?.[0]?.finishReason).toBe("STOP");
  });

  it("asks for JSON with the response schema in JSON Schema's terms", async () => {
    const answer = await genai(openaiTarget()).models.generateContent({
      model: "gpt-4o-mini",
      contents: "openai names",
      config: { responseMimeType: "application/json", responseSchema: { type: Type.OBJECT, properties: { names: { type: Type.ARRAY, items: { type: Type.STRING } } } } },
    });
    expect(JSON.parse(answer.text!)).toEqual({ names: ["Ada", "Grace"] });
    expect(lastUpstreamBody().response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "response", schema: { type: "object", properties: { names: { type: "array", items: { type: "string" } } } } },
    });
  });

  it("selects the provider by the model's @<provider>/ form in the path, and by a config", async () => {
    const byModel = await genai({ "x-gateway-custom-host": `${upstream.url}/v1` }).models.generateContent({ model: "@openai/gpt-4o-mini", contents: "openai hello" });
    expect(byModel.text).toBe("Hi from the chat side");
    expect(lastUpstreamBody().model).toBe("gpt-4o-mini");

    const config = { strategy: { mode: "fallback" }, targets: [{ provider: "openai", custom_host: `${upstream.url}/v1`, api_key: UPSTREAM_KEY }] };
    const byConfig = await genai({ "x-gateway-config": JSON.stringify(config) }, "unused-key").models.generateContent({ model: "gpt-4o-mini", contents: "openai hello" });
    expect(byConfig.text).toBe("Hi from the chat side");
    const record = await storedLog(gateway, logIdOf(byConfig));
    expect(record).toMatchObject({ route: "generateContent", provider: "openai", status: 200 });
  });

  it("serves a repeated request from the cache, in Google's format, streamed or not", async () => {
    const client = genai({ ...openaiTarget(), "x-gateway-config": JSON.stringify({ cache: { mode: "simple", max_age: 60 } }), "x-gateway-cache-namespace": `google-${Date.now()}` });
    const params = { model: "gpt-4o-mini", contents: "openai hello" };
    const first = await client.models.generateContent(params);
    const second = await client.models.generateContent(params);
    expect([first, second].map((answer) => answer.sdkHttpResponse?.headers?.["x-gateway-cache-status"])).toEqual(["MISS", "HIT"]);
    expect(second.candidates).toEqual(first.candidates);
    const missed = await streamed(await client.models.generateContentStream({ ...params, config: { temperature: 0.5 } }));
    const hit = await streamed(await client.models.generateContentStream({ ...params, config: { temperature: 0.5 } }));
    expect([missed.last, hit.last].map((chunk) => chunk.sdkHttpResponse?.headers?.["x-gateway-cache-status"])).toEqual(["MISS", "HIT"]);
    expect(hit.text).toBe(missed.text);
  });

  it("holds a virtual key's rate limit, answering past it in Google's shape", async () => {
    const created = await call(gateway, "POST", "/v1/virtual-keys", {
      body: { name: "Google SDK team", provider: "openai", key: UPSTREAM_KEY, custom_host: `${upstream.url}/v1`, rate_limit: { requests_per_minute: 1 } },
    });
    expect(created.status).toBe(201);
    const client = genai({}, "unused-key");
    const first = await client.models.generateContent({ model: `@${created.body.slug}/gpt-4o-mini`, contents: "openai hello" });
    expect(first.text).toBe("Hi from the chat side");
    const limited = await apiError(client.models.generateContent({ model: `@${created.body.slug}/gpt-4o-mini`, contents: "openai hello" }));
    expect(limited.status).toBe(429);
    expect(JSON.parse(limited.message)).toMatchObject({ error: { code: 429, status: "RESOURCE_EXHAUSTED" } });
  });

  it("runs a config's input and output guardrails on the Gemini request and answer, streamed or not, denials in Google's shape", async () => {
    const guardrail = async (name: string, word: string): Promise<string> => {
      const created = await call(gateway, "POST", "/v1/guardrails", { body: { name, checks: [{ type: "contains", params: { words: [word], operator: "none" } }], action: { deny: true } } });
      expect(created.status).toBe(201);
      return created.body.slug as string;
    };
    const config = { provider: "openai", custom_host: `${upstream.url}/v1`, input_guardrails: [await guardrail("no passwords", "password")], output_guardrails: [await guardrail("no chat side", "chat side")] };
    const client = genai({ "x-gateway-config": JSON.stringify(config) });
    const before = upstream.getRequests().length;
    const denied = await apiError(client.models.generateContent({ model: "gpt-4o-mini", contents: "openai names and my password" }));
    expect(denied.status).toBe(446);
    expect(JSON.parse(denied.message)).toMatchObject({ error: { code: 446, status: "PERMISSION_DENIED" }, hook_results: expect.any(Object) });
    expect(upstream.getRequests().length).toBe(before);

    const answered = await apiError(client.models.generateContent({ model: "gpt-4o-mini", contents: "openai hello" }));
    expect(answered.status).toBe(446);
    const streamedDenial = await apiError(client.models.generateContentStream({ model: "gpt-4o-mini", contents: "openai hello" }).then(streamed));
    expect(streamedDenial.status).toBe(446);
    expect(JSON.parse(streamedDenial.message.replace(/^got status: \S+\. /, ""))).toMatchObject({ error: { code: 446, status: "PERMISSION_DENIED" } });
  });

  it("ends a stream cut upstream with an error event in Google's shape, which the SDK raises", async () => {
    const stream = await genai(openaiTarget()).models.generateContentStream({ model: "gpt-4o-mini", contents: "openai cut" });
    let text = "";
    const error = await apiError(
      (async () => {
        for await (const chunk of stream) text += chunk.candidates?.[0]?.content?.parts?.[0]?.text ?? "";
      })(),
    );
    expect(text.length).toBeGreaterThan(0);
    expect(error.status).toBeGreaterThanOrEqual(500);
    expect(error.message).toContain("OpenAI");
  });

  it("maps an upstream error to the SDK's ApiError with the upstream's status, in Google's shape", async () => {
    upstream.nextRequestError(429, { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded" });
    const error = await apiError(genai(openaiTarget()).models.generateContent({ model: "gpt-4o-mini", contents: "openai fails" }));
    expect(error.status).toBe(429);
    expect(JSON.parse(error.message)).toMatchObject({ error: { code: 429, status: "RESOURCE_EXHAUSTED", message: expect.stringContaining("Rate limit reached") } });
  });
});

describe("generateContent to Anthropic, Bedrock and Gemini targets", () => {
  it("reaches Anthropic: plain, streamed and a function call, with usage and cost logged", async () => {
    const client = genai(anthropicTarget());
    const plain = await client.models.generateContent({ model: "claude-sonnet-4-5", contents: "anthropic hello", config: { maxOutputTokens: 100 } });
    expect(plain.text).toBe("Hello from Claude.");
    expect(plain.usageMetadata).toMatchObject({ promptTokenCount: 20, candidatesTokenCount: 5, totalTokenCount: 25 });
    expect(upstream.getLastRequest()?.path).toBe("/v1/messages");
    const record = await storedLog(gateway, logIdOf(plain));
    expect(record).toMatchObject({ route: "generateContent", provider: "anthropic", promptTokens: 20, completionTokens: 5 });
    expect(record.costUsd).toBeGreaterThan(0);

    const { text, last } = await streamed(await client.models.generateContentStream({ model: "claude-sonnet-4-5", contents: "anthropic stream", config: { maxOutputTokens: 100 } }));
    expect(text).toBe("Claude streams five words.");
    expect(last.usageMetadata).toMatchObject({ promptTokenCount: 11, candidatesTokenCount: 9 });
    const streamRecord = await storedLog(gateway, logIdOf(last));
    expect(streamRecord).toMatchObject({ route: "streamGenerateContent", provider: "anthropic", stream: true, promptTokens: 11, completionTokens: 9 });
    expect(streamRecord.costUsd).toBeGreaterThan(0);

    const called = await client.models.generateContent({ model: "claude-sonnet-4-5", contents: "anthropic weather in Paris", config: { maxOutputTokens: 100, tools: [{ functionDeclarations: [weather] }] } });
    expect(called.functionCalls).toEqual([{ id: expect.any(String), name: "get_weather", args: { city: "Paris" } }]);
  });

  it("reaches Bedrock (a model id with a colon in the path): plain, streamed and a function call, with usage and cost logged", async () => {
    const client = genai(bedrockTarget(), "unused-by-sigv4");
    const plain = await client.models.generateContent({ model: BEDROCK_MODEL, contents: "bedrock hello" });
    expect(plain.text).toBe("Hello from Bedrock!");
    expect(upstream.getLastRequest()?.path).toBe(`/model/${encodeURIComponent(BEDROCK_MODEL)}/converse`);
    const record = await storedLog(gateway, logIdOf(plain));
    expect(record).toMatchObject({ route: "generateContent", provider: "bedrock", model: BEDROCK_MODEL, promptTokens: 11, completionTokens: 5 });
    expect(record.costUsd).toBeGreaterThan(0);
    expect(JSON.stringify(record)).not.toContain(AWS_SECRET);

    const { text, last } = await streamed(await client.models.generateContentStream({ model: BEDROCK_MODEL, contents: "bedrock stream" }));
    expect(text).toBe("Bedrock streams five words");
    expect(last.candidates?.[0]?.finishReason).toBe("STOP");
    expect(last.usageMetadata).toMatchObject({ promptTokenCount: 9, candidatesTokenCount: 7 });
    expect((await storedLog(gateway, logIdOf(last))).costUsd).toBeGreaterThan(0);

    const called = await client.models.generateContent({ model: BEDROCK_MODEL, contents: "bedrock weather in Paris", config: { tools: [{ functionDeclarations: [weather] }] } });
    expect(called.functionCalls).toEqual([{ id: expect.any(String), name: "get_weather", args: { city: "Paris" } }]);
  });

  it("reaches Gemini through its chat translation", async () => {
    const answer = await genai(geminiTarget()).models.generateContent({ model: "gemini-2.5-flash", contents: "gemini hello" });
    expect(answer.text).toBe("Bonjour from Gemini");
    expect(upstream.getLastRequest()?.path).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    expect(answer.usageMetadata).toMatchObject({ promptTokenCount: 12, candidatesTokenCount: 4 });
  });
});

describe("countTokens and embedContent", () => {
  it("counts tokens on a Gemini target natively, with the key as x-goog-api-key; elsewhere 400 naming the provider", async () => {
    const counted = await genai(geminiTarget(recording.url)).models.countTokens({ model: "gemini-2.5-flash", contents: "How many tokens is this?" });
    expect(counted.totalTokens).toBe(7);
    const sent = recording.received.at(-1)!;
    expect(sent.path).toBe("/v1/models/gemini-2.5-flash:countTokens");
    expect(sent.headers["x-goog-api-key"]).toBe(UPSTREAM_KEY);
    expect(JSON.parse(sent.body.toString())).toEqual({ contents: [{ role: "user", parts: [{ text: "How many tokens is this?" }] }] });
    const record = await storedLog(gateway, logIdOf(counted as never));
    expect(record).toMatchObject({ route: "countContentTokens", provider: "gemini", model: "gemini-2.5-flash", status: 200, promptTokens: 0, totalTokens: 0, costUsd: null });

    const refused = await apiError(genai(openaiTarget()).models.countTokens({ model: "gpt-4o-mini", contents: "hi" }));
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.message)).toMatchObject({ error: { status: "INVALID_ARGUMENT", message: expect.stringContaining("does not serve countContentTokens") } });
  });

  it("embeds content (the SDK's batchEmbedContents, and embedContent) as embeddings, with usage and cost logged", async () => {
    const client = genai({ "x-gateway-provider": "openai", "x-gateway-custom-host": recording.url });
    const embedded = await client.models.embedContent({ model: "text-embedding-3-small", contents: ["first text", "second text"], config: { outputDimensionality: 2 } });
    expect(embedded.embeddings).toEqual([{ values: [0.25, -0.5] }, { values: [1.25, -0.5] }]);
    const sent = recording.received.at(-1)!;
    expect(sent.path).toBe("/v1/embeddings");
    expect(JSON.parse(sent.body.toString())).toEqual({ model: "text-embedding-3-small", input: ["first text", "second text"], encoding_format: "float", dimensions: 2 });
    const record = await storedLog(gateway, logIdOf(embedded as never));
    expect(record).toMatchObject({ route: "batchEmbedContents", provider: "openai", model: "text-embedding-3-small", promptTokens: 12 });
    expect(record.costUsd).toBeGreaterThan(0);

    const single = await call(gateway, "POST", "/v1beta/models/text-embedding-3-small:embedContent", {
      headers: { "x-gateway-provider": "openai", "x-gateway-custom-host": recording.url, "x-goog-api-key": UPSTREAM_KEY },
      body: { content: { parts: [{ text: "one text" }] }, taskType: "RETRIEVAL_QUERY" },
    });
    expect(single.status).toBe(200);
    expect(single.body).toEqual({ embedding: { values: [0.25, -0.5] }, usageMetadata: { promptTokenCount: 6, totalTokenCount: 6 } });
    const singleRecord = await storedLog(gateway, single.headers.get("x-gateway-log-id")!);
    expect(singleRecord).toMatchObject({ route: "embedContent", promptTokens: 6 });
    expect(singleRecord.costUsd).toBeGreaterThan(0);
  });
});

describe("refusals, in Google's shape", () => {
  it("refuses a bad body with 400 naming the field, before any upstream call", async () => {
    const before = upstream.getRequests().length;
    const headers = { ...openaiTarget(), "x-goog-api-key": UPSTREAM_KEY };
    const empty = await call(gateway, "POST", "/v1beta/models/gpt-4o-mini:generateContent", { headers, body: { contents: [] } });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT", message: expect.stringContaining("contents"), details: [{ fieldViolations: [{ field: "contents" }] }] });
    expect(empty.body.error.type).toBeUndefined();

    const badRole = await call(gateway, "POST", "/v1beta/models/gpt-4o-mini:generateContent", { headers, body: { contents: [{ role: "system", parts: [{ text: "x" }] }] } });
    expect(badRole.status).toBe(400);
    expect(badRole.body.error.message).toContain("contents.0.role");

    const serverTool = await apiError(genai(openaiTarget()).models.generateContent({ model: "gpt-4o-mini", contents: "openai hello", config: { tools: [{ googleSearch: {} }] } }));
    expect(serverTool.status).toBe(400);
    expect(JSON.parse(serverTool.message)).toMatchObject({ error: { status: "INVALID_ARGUMENT", details: [{ fieldViolations: [{ field: "tools.0.googleSearch" }] }] } });

    const notSse = await call(gateway, "POST", "/v1beta/models/gpt-4o-mini:streamGenerateContent", { headers, body: { contents: [{ parts: [{ text: "x" }] }] } });
    expect(notSse.status).toBe(400);
    expect(notSse.body.error.message).toContain("alt");
    expect(upstream.getRequests().length).toBe(before);

    const record = await storedLog(gateway, badRole.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "generateContent", status: 400 });
    expect(JSON.parse(record.responseBody!)).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT" } });
  });

  it("answers 404 for a /v1beta path it does not serve, and sends nothing upstream", async () => {
    const before = upstream.getRequests().length;
    const headers = { ...openaiTarget(), "x-goog-api-key": UPSTREAM_KEY };
    for (const path of ["/v1beta/models/gpt-4o-mini:predict", "/v1beta/tunedModels/my-model:generateContent", "/v1beta/models/gpt-4o-mini", "/v1beta/cachedContents"]) {
      const answer = await call(gateway, "POST", path, { headers, body: { contents: [{ parts: [{ text: "x" }] }] } });
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).toEqual({ error: { code: 404, message: expect.stringContaining(path), status: "NOT_FOUND" } });
    }
    expect(upstream.getRequests().length).toBe(before);
    const sdk = await apiError(new GoogleGenAI({ apiKey: UPSTREAM_KEY, httpOptions: { baseUrl: gateway.url, apiVersion: "v1beta", headers: { "x-gateway-api-key": gateway.adminKey, ...openaiTarget() } } }).models.get({ model: "gpt-4o-mini" }));
    expect(sdk.status).toBe(404);
  });

  it("serves /v1beta as /v1, refuses a missing gateway key with 401 and a gateway key sent as x-goog-api-key with 400, never upstream", async () => {
    const beta = new GoogleGenAI({ apiKey: UPSTREAM_KEY, httpOptions: { baseUrl: gateway.url, apiVersion: "v1beta", headers: { "x-gateway-api-key": gateway.adminKey, ...openaiTarget() } } });
    expect((await beta.models.generateContent({ model: "gpt-4o-mini", contents: "openai hello" })).text).toBe("Hi from the chat side");

    const before = upstream.getRequests().length;
    const anonymous = await apiError(new GoogleGenAI({ apiKey: UPSTREAM_KEY, httpOptions: { baseUrl: gateway.url, headers: openaiTarget() } }).models.generateContent({ model: "gpt-4o-mini", contents: "openai hello" }));
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.message)).toMatchObject({ error: { code: 401, status: "UNAUTHENTICATED" } });

    const leaked = await apiError(genai(openaiTarget(), gateway.adminKey).models.generateContent({ model: "gpt-4o-mini", contents: "openai hello" }));
    expect(leaked.status).toBe(400);
    expect(JSON.parse(leaked.message).error.message).toContain("x-goog-api-key holds a gateway key");
    expect(upstream.getRequests().length).toBe(before);
  });
});
