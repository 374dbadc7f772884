/**
 * One conformance suite over every chat provider the gateway translates (ARCHITECTURE rule 2):
 * the same cases, through the official `openai` client, against aimock speaking each provider's
 * own wire format, every answer and chunk checked against the official OpenAI schema. OpenAI
 * itself (pass-through) is the baseline row. A case aimock cannot express for a provider is left
 * out in the table with its reason; a test below makes sure the table covers every provider.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChaosConfig, LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { PROVIDERS } from "../src/providers/catalogue.ts";
import { openaiContractProblems } from "./support/contract.ts";
import { startGateway, startUpstream, storedLog, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startTappedUpstream, type TappedUpstream } from "./support/tapped-upstream.ts";

type CaseName = "plain" | "instructions" | "toolTurns" | "image" | "toolStream" | "usage" | "errorStatus" | "errorBody" | "brokenUpstream" | "cutStream";

interface ProviderRow {
  id: string;
  model: string;
  /** The custom host, from the upstream's base URL (the tap in front of aimock). */
  host(base: string): string;
  apiKey: string;
  headers: Record<string, string>;
  /** Dollars per million tokens for `model` in src/providers/prices.json. */
  price: { input: number; output: number };
  /** The content block a base64 PNG data URL must become on the wire. */
  image(data: string): object;
  /** How the provider names each injected error (aimock writes it into the provider's error body). */
  errorType(status: number): string;
  /** Statuses this provider answers beyond the common ones. */
  extraStatuses: number[];
  /** Cases left out for this provider, each with the reason. */
  leftOut: Partial<Record<CaseName, string>>;
}

const GEMINI_KEY = "AIza-conformance-gemini-key-0123456789";

/** Error types as Anthropic (and aimock's Bedrock and OpenAI bodies) name them. */
const ANTHROPIC_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  429: "rate_limit_error",
  500: "api_error",
  503: "api_error",
  529: "overloaded_error",
};
/** Google's canonical statuses. */
const GOOGLE_STATUSES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

const PROVIDER_TABLE: readonly ProviderRow[] = [
  {
    id: "openai",
    model: "gpt-4o-mini",
    host: (base) => `${base}/v1`,
    apiKey: UPSTREAM_KEY,
    headers: { "x-gateway-provider": "openai" },
    price: { input: 0.15, output: 0.6 },
    image: (data) => ({ type: "image_url", image_url: { url: `data:image/png;base64,${data}` } }),
    errorType: (status) => ANTHROPIC_TYPES[status]!,
    extraStatuses: [],
    leftOut: {},
  },
  {
    id: "anthropic",
    model: "claude-sonnet-4-5",
    host: (base) => `${base}/v1`,
    apiKey: UPSTREAM_KEY,
    headers: { "x-gateway-provider": "anthropic" },
    price: { input: 3, output: 15 },
    image: (data) => ({ type: "image", source: { type: "base64", media_type: "image/png", data } }),
    errorType: (status) => ANTHROPIC_TYPES[status]!,
    // Anthropic's own "overloaded", kept as sent (docs/providers.md).
    extraStatuses: [529],
    leftOut: {},
  },
  {
    id: "gemini",
    model: "gemini-2.5-flash",
    host: (base) => `${base}/v1beta`,
    apiKey: GEMINI_KEY,
    headers: { "x-gateway-provider": "gemini" },
    price: { input: 0.3, output: 2.5 },
    image: (data) => ({ inlineData: { mimeType: "image/png", data } }),
    errorType: (status) => GOOGLE_STATUSES[status]!,
    extraStatuses: [],
    leftOut: {},
  },
  {
    id: "vertex",
    model: "gemini-2.5-flash",
    host: (base) => `${base}/v1`,
    // An access token (not a service-account key) is sent as it is, so no token endpoint is needed here.
    apiKey: "ya29.conformance-vertex-access-token",
    headers: { "x-gateway-provider": "vertex", "x-gateway-vertex-project": "conformance-project", "x-gateway-vertex-location": "us-central1" },
    price: { input: 0.3, output: 2.5 },
    image: (data) => ({ inlineData: { mimeType: "image/png", data } }),
    errorType: (status) => GOOGLE_STATUSES[status]!,
    extraStatuses: [],
    leftOut: {},
  },
  {
    id: "bedrock",
    model: "anthropic.claude-3-5-haiku-20241022-v1:0",
    host: (base) => base,
    apiKey: "unused-by-sigv4",
    headers: {
      "x-gateway-provider": "bedrock",
      "x-gateway-aws-access-key-id": "AKIAIOSFODNN7EXAMPLE",
      "x-gateway-aws-secret-access-key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY",
      "x-gateway-aws-region": "us-east-1",
    },
    price: { input: 0.8, output: 4 },
    image: (data) => ({ image: { format: "png", source: { bytes: data } } }),
    errorType: (status) => ANTHROPIC_TYPES[status]!,
    extraStatuses: [],
    leftOut: {
      // aimock answers Converse errors in Anthropic's body shape ({type:"error", error:{…}}) and sends
      // no x-amzn-errortype, while Bedrock answers {"message": …} and names the exception in that
      // header: message and code cannot be checked against what Bedrock would send.
      errorBody: "aimock writes Bedrock errors in Anthropic's shape without x-amzn-errortype",
    },
  },
];

/**
 * Translated providers not in the table, each with why. Every provider that is not
 * OpenAI-format must be in the table or here.
 */
const EXCLUDED: Readonly<Record<string, string>> = {
  cohere: "serves rerank only (no chat): test/rerank.test.ts",
  jina: "serves rerank only (no chat): test/rerank.test.ts",
  voyage: "serves rerank only (no chat): test/rerank.test.ts",
};

const COMMON_STATUSES = [400, 401, 403, 404, 429, 500, 503] as const;

/** A 1×1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const weatherTool: OpenAI.ChatCompletionTool = {
  type: "function",
  function: { name: "get_weather", description: "Weather by city", parameters: { type: "object", properties: { city: { type: "string" }, unit: { type: "string" } }, required: ["city"] } },
};
const forecastTool: OpenAI.ChatCompletionTool = {
  type: "function",
  function: { name: "get_forecast", description: "Forecast by city", parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } }, required: ["city", "days"] } },
};

let gateway: RunningGateway;
let upstream: LLMock;
let tap: TappedUpstream;

beforeAll(async () => {
  // The official document compiles once, outside the tests' time.
  openaiContractProblems("CreateChatCompletionResponse", {});
  openaiContractProblems("CreateChatCompletionStreamResponse", {});
  openaiContractProblems("ErrorResponse", {});
  upstream = await startUpstream();
  // First: the tool result turn still ends with the user's "conformance weather".
  upstream.on({ toolResultContains: "temperature" }, { content: "It is 21 degrees in Paris.", usage: { prompt_tokens: 30, completion_tokens: 8, total_tokens: 38 } });
  upstream.onMessage("conformance plain", { content: "Plain answer.", usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } });
  upstream.onMessage("conformance instructions", { content: "Instructions heard.", usage: { prompt_tokens: 14, completion_tokens: 3, total_tokens: 17 } });
  upstream.onMessage("conformance weather", { toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris","unit":"celsius"}' }], usage: { prompt_tokens: 20, completion_tokens: 6, total_tokens: 26 } });
  upstream.onMessage("conformance image", { content: "A red dot.", usage: { prompt_tokens: 90, completion_tokens: 4, total_tokens: 94 } });
  upstream.onMessage("conformance forecast", {
    toolCalls: [
      { name: "get_forecast", arguments: '{"city":"Paris","days":3}' },
      { name: "get_weather", arguments: '{"city":"Lyon","unit":"celsius"}' },
    ],
    usage: { prompt_tokens: 25, completion_tokens: 9, total_tokens: 34 },
  });
  // Small chunks, slowly, and the connection cut after the fourth: the stream has begun when it breaks.
  upstream.onMessage("conformance cut", { content: "One two three four five six seven eight nine ten." }, { chunkSize: 5, truncateAfterChunks: 4, latency: 20 });
  upstream.onMessage("conformance usage", { content: "Counted to ten, one by one.", usage: { prompt_tokens: 40, completion_tokens: 10, total_tokens: 50 } });
  tap = await startTappedUpstream(upstream.url);
  gateway = await startGateway();
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await tap?.close();
  await upstream?.stop();
});

function clientFor(row: ProviderRow): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: row.apiKey,
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-custom-host": row.host(tap.url), ...row.headers },
  });
}

function expectValidAnswer(answer: unknown): void {
  expect(openaiContractProblems("CreateChatCompletionResponse", answer), JSON.stringify(answer)).toEqual([]);
}

async function collect(stream: AsyncIterable<OpenAI.ChatCompletionChunk>): Promise<OpenAI.ChatCompletionChunk[]> {
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  for await (const chunk of stream) {
    expect(openaiContractProblems("CreateChatCompletionStreamResponse", chunk), JSON.stringify(chunk)).toEqual([]);
    chunks.push(chunk);
  }
  return chunks;
}

/** Every object inside a JSON value, the value included. */
function objectsIn(value: unknown): object[] {
  if (Array.isArray(value)) return value.flatMap(objectsIn);
  if (!value || typeof value !== "object") return [];
  return [value, ...Object.values(value).flatMap(objectsIn)];
}

/** The last body the gateway sent upstream, parsed. */
function lastWireBody(): unknown {
  return JSON.parse(tap.bodies.at(-1)!);
}

function costOf(row: ProviderRow, prompt: number, completion: number): number {
  return (prompt * row.price.input + completion * row.price.output) / 1e6;
}

describe("the conformance table", () => {
  it("covers every provider that is not OpenAI-format, except those excluded with a reason", () => {
    const translated = [...PROVIDERS.values()].filter((provider) => !provider.openaiFormat).map((provider) => provider.id);
    const covered = [...PROVIDER_TABLE.map((row) => row.id), ...Object.keys(EXCLUDED)].filter((id) => PROVIDERS.get(id)?.openaiFormat === false);
    expect(covered.sort()).toEqual(translated.sort());
    // The baseline row is the OpenAI format itself.
    expect(PROVIDERS.get(PROVIDER_TABLE[0]!.id)?.openaiFormat).toBe(true);
    for (const reason of [...Object.values(EXCLUDED), ...PROVIDER_TABLE.flatMap((row) => Object.values(row.leftOut))]) expect(reason.trim()).not.toBe("");
  });
});

describe.each(PROVIDER_TABLE)("provider $id through the official openai client", (row) => {
  /** Registers a case unless the table leaves it out for this provider (with its reason, above). */
  const conformance = (name: CaseName, title: string, run: () => Promise<void>): void => {
    if (row.leftOut[name] === undefined) it(title, run);
  };

  conformance("plain", "answers a plain chat", async () => {
    const { data, response } = await clientFor(row).chat.completions.create({ model: row.model, messages: [{ role: "user", content: "conformance plain" }] }).withResponse();
    expectValidAnswer(data);
    expect(data.object).toBe("chat.completion");
    expect(data.choices).toHaveLength(1);
    expect(data.choices[0]).toMatchObject({ index: 0, message: { role: "assistant", content: "Plain answer." }, finish_reason: "stop" });
    expect(response.headers.get("x-gateway-provider")).toBe(row.id);
    expect(upstream.getLastRequest()?.response.status).toBe(200);
  });

  conformance("instructions", "takes system and developer messages, both reaching the upstream", async () => {
    const data = await clientFor(row).chat.completions.create({
      model: row.model,
      messages: [
        { role: "system", content: "Answer in English." },
        { role: "developer", content: "Keep it short." },
        { role: "user", content: "conformance instructions" },
      ],
    });
    expectValidAnswer(data);
    expect(data.choices[0]?.message.content).toBe("Instructions heard.");
    const texts = objectsIn(lastWireBody()).flatMap((node) => Object.values(node).filter((value) => typeof value === "string"));
    expect(texts.some((text) => text.includes("Answer in English."))).toBe(true);
    expect(texts.some((text) => text.includes("Keep it short."))).toBe(true);
  });

  conformance("toolTurns", "calls a tool, then answers from the tool's result on the next turn", async () => {
    const client = clientFor(row);
    const ask: OpenAI.ChatCompletionMessageParam = { role: "user", content: "conformance weather" };
    const first = await client.chat.completions.create({ model: row.model, messages: [ask], tools: [weatherTool], tool_choice: "auto" });
    expectValidAnswer(first);
    expect(first.choices[0]?.finish_reason).toBe("tool_calls");
    const toolCall = first.choices[0]?.message.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall | undefined;
    expect(toolCall).toMatchObject({ type: "function", id: expect.stringMatching(/.+/), function: { name: "get_weather" } });
    expect(JSON.parse(toolCall!.function.arguments)).toEqual({ city: "Paris", unit: "celsius" });

    const second = await client.chat.completions.create({
      model: row.model,
      messages: [ask, first.choices[0]!.message, { role: "tool", tool_call_id: toolCall!.id, content: '{"temperature":21}' }],
      tools: [weatherTool],
    });
    expectValidAnswer(second);
    expect(second.choices[0]).toMatchObject({ message: { content: "It is 21 degrees in Paris." }, finish_reason: "stop" });
    // aimock read the upstream turns back: the call, then its result, in that order.
    const turns = (upstream.getLastRequest()?.body as { messages: Array<{ role: string; content: unknown; tool_calls?: Array<{ function: { name: string } }> }> }).messages;
    expect(turns.map((turn) => turn.role)).toEqual(["user", "assistant", "tool"]);
    expect(turns[1]?.tool_calls?.[0]?.function.name).toBe("get_weather");
    expect(JSON.parse(turns[2]!.content as string)).toEqual({ temperature: 21 });
  });

  conformance("image", "sends a data-URL image as the provider's image block", async () => {
    const data = await clientFor(row).chat.completions.create({
      model: row.model,
      messages: [{ role: "user", content: [{ type: "text", text: "conformance image" }, { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }] }],
    });
    expectValidAnswer(data);
    expect(data.choices[0]?.message.content).toBe("A red dot.");
    expect(objectsIn(lastWireBody())).toContainEqual(row.image(PNG));
  });

  conformance("toolStream", "streams parallel tool-call deltas whose assembled arguments parse to each call", async () => {
    const chunks = await collect(
      await clientFor(row).chat.completions.create({ model: row.model, messages: [{ role: "user", content: "conformance forecast" }], tools: [forecastTool, weatherTool], stream: true }),
    );
    const calls = new Map<number, { id?: string; name?: string; type?: string; arguments: string }>();
    for (const delta of chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? [])) {
      const entry = calls.get(delta.index) ?? { arguments: "" };
      entry.id ??= delta.id;
      entry.type ??= delta.type;
      entry.name ??= delta.function?.name;
      entry.arguments += delta.function?.arguments ?? "";
      calls.set(delta.index, entry);
    }
    expect([...calls.keys()]).toEqual([0, 1]);
    expect(calls.get(0)).toMatchObject({ id: expect.stringMatching(/.+/), type: "function", name: "get_forecast" });
    expect(calls.get(1)).toMatchObject({ id: expect.stringMatching(/.+/), type: "function", name: "get_weather" });
    expect(calls.get(0)!.id).not.toBe(calls.get(1)!.id);
    expect(JSON.parse(calls.get(0)!.arguments)).toEqual({ city: "Paris", days: 3 });
    expect(JSON.parse(calls.get(1)!.arguments)).toEqual({ city: "Lyon", unit: "celsius" });
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason).filter(Boolean)).toEqual(["tool_calls"]);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
  });

  conformance("usage", "reports usage in plain and streamed answers, and logs tokens and cost", async () => {
    const client = clientFor(row);
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "conformance usage" }];
    const { data, response } = await client.chat.completions.create({ model: row.model, messages }).withResponse();
    expectValidAnswer(data);
    expect(data.usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 10, total_tokens: 50 });
    const plainLog = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(plainLog).toMatchObject({ provider: row.id, model: row.model, status: 200, success: true, stream: false, promptTokens: 40, completionTokens: 10, totalTokens: 50 });
    expect(plainLog.costUsd).toBeCloseTo(costOf(row, 40, 10), 12);

    const { data: stream, response: streamed } = await client.chat.completions.create({ model: row.model, messages, stream: true, stream_options: { include_usage: true } }).withResponse();
    const chunks = await collect(stream);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("Counted to ten, one by one.");
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason).filter(Boolean)).toEqual(["stop"]);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 40, completion_tokens: 10, total_tokens: 50 } });
    const streamLog = await storedLog(gateway, streamed.headers.get("x-gateway-log-id")!);
    expect(streamLog).toMatchObject({ provider: row.id, status: 200, success: true, stream: true, promptTokens: 40, completionTokens: 10, totalTokens: 50 });
    expect(streamLog.costUsd).toBeCloseTo(costOf(row, 40, 10), 12);
  });

  /** The client's error for a request that meets an injected upstream error. */
  async function failWith(status: number, stream: boolean): Promise<InstanceType<typeof OpenAI.APIError>> {
    const type = row.errorType(status);
    upstream.nextRequestError(status, { message: `Injected ${status} for ${row.id}.`, type, code: type });
    const failure = await clientFor(row)
      .chat.completions.create({ model: row.model, messages: [{ role: "user", content: "conformance plain" }], stream })
      .then(() => null, (error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    return failure as InstanceType<typeof OpenAI.APIError>;
  }

  /** The official client's error class for each status. */
  const errorClasses: Record<number, abstract new (...args: never[]) => InstanceType<typeof OpenAI.APIError>> = {
    400: OpenAI.BadRequestError,
    401: OpenAI.AuthenticationError,
    403: OpenAI.PermissionDeniedError,
    404: OpenAI.NotFoundError,
    429: OpenAI.RateLimitError,
    500: OpenAI.InternalServerError,
    502: OpenAI.InternalServerError,
    503: OpenAI.InternalServerError,
    529: OpenAI.InternalServerError,
  };

  conformance("errorStatus", "keeps each injected error's status, plain and streamed, with the envelope and 429's Retry-After", async () => {
    for (const status of [...COMMON_STATUSES, ...row.extraStatuses]) {
      for (const stream of [false, true]) {
        const error = await failWith(status, stream);
        const where = `${status}${stream ? " streamed" : ""}`;
        expect(error, where).toBeInstanceOf(errorClasses[status]!);
        expect(error.status, where).toBe(status);
        expect(openaiContractProblems("ErrorResponse", { error: error.error }), where).toEqual([]);
        if (status === 429) expect(error.headers?.get("retry-after"), where).toBe("1");
        const record = await storedLog(gateway, error.headers!.get("x-gateway-log-id")!);
        expect(record, where).toMatchObject({ provider: row.id, status, success: false });
      }
    }
    // The injected errors were one-shot: the next request is answered.
    const data = await clientFor(row).chat.completions.create({ model: row.model, messages: [{ role: "user", content: "conformance plain" }] });
    expect(data.choices[0]?.message.content).toBe("Plain answer.");
  });

  conformance("errorBody", "keeps the upstream's error message, and its error type as the code", async () => {
    for (const status of [400, 429, 500]) {
      const error = await failWith(status, false);
      expect(error.error, String(status)).toMatchObject({ message: `Injected ${status} for ${row.id}.`, code: row.errorType(status) });
    }
  });

  conformance("brokenUpstream", "answers an upstream that drops, garbles, hangs up or rate-limits with the right status, plain and streamed", async () => {
    // aimock's chaos answers in OpenAI's error shape whatever the format: the statuses are what count here.
    const outcomes: Array<{ chaos: ChaosConfig; status: number; code?: string }> = [
      { chaos: { dropRate: 1 }, status: 500 },
      { chaos: { malformedRate: 1 }, status: 502 },
      { chaos: { disconnectRate: 1 }, status: 502, code: "upstream_unreachable" },
      { chaos: { rateLimitRate: 1 }, status: 429 },
    ];
    for (const { chaos, status, code } of outcomes) {
      for (const stream of [false, true]) {
        const where = `${JSON.stringify(chaos)}${stream ? " streamed" : ""}`;
        upstream.setChaos(chaos);
        const failure = await clientFor(row)
          .chat.completions.create({ model: row.model, messages: [{ role: "user", content: "conformance plain" }], stream })
          .then(() => null, (error: unknown) => error)
          .finally(() => upstream.clearChaos());
        expect(failure, where).toBeInstanceOf(errorClasses[status]!);
        const error = failure as InstanceType<typeof OpenAI.APIError>;
        expect(error.status, where).toBe(status);
        expect(openaiContractProblems("ErrorResponse", { error: error.error }), where).toEqual([]);
        if (code) expect(error.code, where).toBe(code);
        if (status === 429) expect(error.headers?.get("retry-after"), where).toBe("1");
      }
    }
  });

  conformance("cutStream", "ends a stream cut off mid-way with an error the client raises, and logs it as failed", async () => {
    const { data: stream, response } = await clientFor(row)
      .chat.completions.create({ model: row.model, messages: [{ role: "user", content: "conformance cut" }], stream: true })
      .withResponse();
    expect(response.status).toBe(200);
    let text = "";
    const failure = await (async () => {
      for await (const chunk of stream) {
        expect(openaiContractProblems("CreateChatCompletionStreamResponse", chunk), JSON.stringify(chunk)).toEqual([]);
        expect(chunk.choices[0]?.finish_reason ?? null).toBeNull();
        text += chunk.choices[0]?.delta.content ?? "";
      }
      return null;
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(text.length).toBeGreaterThan(0);
    expect("One two three four five six seven eight nine ten.".startsWith(text)).toBe(true);
    expect(text).not.toBe("One two three four five six seven eight nine ten.");
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ provider: row.id, stream: true, success: false });
  });
});
