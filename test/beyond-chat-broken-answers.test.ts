/**
 * Upstream answers that say 200 but do not hold what the request asked for, on the providers
 * whose embeddings, images and chat the gateway translates, through the official openai client
 * against a loopback upstream answering in each provider's shape: the client gets a 502 in the
 * gateway's envelope naming the provider (never a 200 with another input's vector, an empty
 * one, or no image), the log records the failure, and the gateway keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { startGateway, storedLog, type RunningGateway } from "./support/harness.ts";
import { startRecordingUpstream, type Answer, type RecordingUpstream } from "./support/recording-upstream.ts";
import { startGoogleTokenServer, type GoogleTokenServer } from "./support/google-token-server.ts";

let gateway: RunningGateway;
let upstream: RecordingUpstream;
let tokens: GoogleTokenServer;
let next: Answer;

beforeAll(async () => {
  tokens = await startGoogleTokenServer();
  tokens.answer({ accessToken: "ya29.broken", expiresIn: 3600 });
  upstream = await startRecordingUpstream(() => next);
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  await tokens?.close();
});

const answerWith = (body: unknown, status = 200): void => {
  next = { status, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
};
const base = (): string => upstream.url.replace(/\/v1$/, "");

type Headers = Record<string, string>;
const providers = {
  gemini: (): Headers => ({ "x-gateway-provider": "gemini", "x-gateway-custom-host": `${base()}/v1beta` }),
  vertex: (): Headers => ({ "x-gateway-provider": "vertex", "x-gateway-custom-host": upstream.url, "x-gateway-vertex-project": "broken-project", "x-gateway-vertex-location": "us-central1" }),
  bedrock: (): Headers => ({
    "x-gateway-provider": "bedrock",
    "x-gateway-custom-host": base(),
    "x-gateway-aws-access-key-id": "AKIAIOSFODNN7EXAMPLE",
    "x-gateway-aws-secret-access-key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYBROKENKEY",
    "x-gateway-aws-region": "us-east-1",
  }),
  cohere: (): Headers => ({ "x-gateway-provider": "cohere", "x-gateway-custom-host": base() }),
};

function client(headers: Headers, apiKey = "upstream-key"): OpenAI {
  return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey, maxRetries: 0, defaultHeaders: { "x-gateway-api-key": gateway.adminKey, ...headers } });
}

const vertexKey = (): string => tokens.account("broken@broken-project.iam.gserviceaccount.com").keyJson;

/** The error the client got: status, the envelope's message, and the log id. */
async function failure(request: Promise<unknown>): Promise<{ status: number; message: string; logId: string }> {
  const error = await request.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OpenAI.APIError);
  const apiError = error as InstanceType<typeof OpenAI.APIError>;
  return { status: apiError.status ?? 0, message: (apiError.error as { message: string }).message, logId: apiError.headers?.get("x-gateway-log-id") ?? "" };
}

async function stillServes(): Promise<void> {
  expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
}

describe("embeddings answers without one vector per input", () => {
  const cases: { name: string; headers: () => Headers; apiKey?: () => string; model: string; input: string | string[]; body: unknown; provider: string }[] = [
    { name: "Cohere, no vectors", headers: providers.cohere, model: "embed-v4.0", input: ["a", "b"], body: { id: "e", embeddings: { float: [] }, meta: { billed_units: { input_tokens: 2 } } }, provider: "Cohere" },
    { name: "Cohere, one vector of words", headers: providers.cohere, model: "embed-v4.0", input: ["a", "b"], body: { embeddings: { float: [[0.5], ["x", null]] } }, provider: "Cohere" },
    { name: "Gemini, a batch answer one short", headers: providers.gemini, model: "gemini-embedding-001", input: ["a", "b"], body: { embeddings: [{ values: [0.1, 0.2] }] }, provider: "Google Gemini" },
    { name: "Gemini, no embedding at all", headers: providers.gemini, model: "gemini-embedding-001", input: "a", body: {}, provider: "Google Gemini" },
    { name: "Vertex AI, a prediction null", headers: providers.vertex, apiKey: vertexKey, model: "text-embedding-005", input: ["a", "b"], body: { predictions: [null, { embeddings: { values: [1] } }] }, provider: "Google Vertex AI" },
    { name: "Bedrock Titan, an empty vector", headers: providers.bedrock, model: "amazon.titan-embed-text-v2:0", input: "a", body: { embedding: [], inputTextTokenCount: 1 }, provider: "AWS Bedrock" },
    { name: "Bedrock Cohere Embed, three vectors for two inputs", headers: providers.bedrock, model: "cohere.embed-english-v3", input: ["a", "b"], body: { embeddings: [[1], [2], [3]] }, provider: "AWS Bedrock" },
  ];

  for (const { name, headers, apiKey, model, input, body, provider } of cases) {
    it(`${name}: a 502 naming the provider, logged as failed`, async () => {
      answerWith(body);
      const { status, message, logId } = await failure(client(headers(), apiKey?.()).embeddings.create({ model, input, encoding_format: "float" }));
      expect(status).toBe(502);
      expect(message).toMatch(new RegExp(`^${provider} answered with .*(\\d+ vectors? for \\d+ inputs?|no vector of numbers for input \\d+)`));
      expect(message).not.toMatch(/\b1 (vectors|inputs)\b/);
      const record = await storedLog(gateway, logId);
      expect(record).toMatchObject({ status: 502, route: "createEmbedding" });
      await stillServes();
    });
  }

  it("a whole answer still passes, one vector per input in order", async () => {
    answerWith({ id: "e", embeddings: { float: [[0.5, 1], [0.25, 2]] }, meta: { billed_units: { input_tokens: 2 } } });
    const answer = await client(providers.cohere()).embeddings.create({ model: "embed-v4.0", input: ["a", "b"], encoding_format: "float" });
    expect(answer.data.map((item) => item.embedding)).toEqual([[0.5, 1], [0.25, 2]]);
  });
});

describe("image answers without an image", () => {
  const cases: { name: string; headers: () => Headers; apiKey?: () => string; model: string; body: unknown; message: string }[] = [
    {
      name: "Vertex AI Imagen, every image filtered",
      headers: providers.vertex,
      apiKey: vertexKey,
      model: "imagen-4.0-generate-001",
      body: { predictions: [{ raiFilteredReason: "The image was filtered by the safety filter." }] },
      message: "Google Vertex AI (Imagen) answered with no image: The image was filtered by the safety filter.",
    },
    { name: "Gemini API Imagen, no predictions", headers: providers.gemini, model: "imagen-4.0-generate-001", body: {}, message: "Google Gemini (Imagen) answered with no image." },
    {
      name: "Bedrock Nova Canvas, its error said",
      headers: providers.bedrock,
      model: "amazon.nova-canvas-v1:0",
      body: { images: [], error: "This request has been blocked by our content filters." },
      message: "AWS Bedrock (Nova Canvas) answered with no image: This request has been blocked by our content filters.",
    },
    { name: "Bedrock Titan Image, images not strings", headers: providers.bedrock, model: "amazon.titan-image-generator-v2:0", body: { images: [null, 5, ""] }, message: "AWS Bedrock (Titan Image Generator) answered with no image." },
  ];

  for (const { name, headers, apiKey, model, body, message } of cases) {
    it(`${name}: a 502 saying so, logged as failed`, async () => {
      answerWith(body);
      const refused = await failure(client(headers(), apiKey?.()).images.generate({ model, prompt: "a lighthouse" }));
      expect(refused).toMatchObject({ status: 502, message });
      expect(await storedLog(gateway, refused.logId)).toMatchObject({ status: 502, route: "createImage" });
      await stillServes();
    });
  }

  it("an answer with some images filtered passes the ones made", async () => {
    answerWith({ predictions: [{ bytesBase64Encoded: "aW1hZ2U=", mimeType: "image/png" }, { raiFilteredReason: "filtered" }] });
    const answer = await client(providers.gemini()).images.generate({ model: "imagen-4.0-generate-001", prompt: "a lighthouse", n: 2 });
    expect(answer.data).toEqual([{ b64_json: "aW1hZ2U=" }]);
  });
});

describe("Cohere chat streams whose message-end reports no usage", () => {
  const event = (type: string, body: object): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
  const stream = (usage: unknown): void => {
    next = {
      headers: { "content-type": "text/event-stream" },
      body: [
        event("message-start", { id: "m1", delta: { message: { role: "assistant" } } }),
        event("content-delta", { index: 0, delta: { message: { content: { type: "text", text: "Hello" } } } }),
        event("message-end", { delta: { finish_reason: "COMPLETE", ...(usage === undefined ? {} : { usage }) } }),
      ].join(""),
    };
  };

  for (const [name, usage] of [
    ["without usage", undefined],
    ["with counts that are not numbers", { billed_units: { input_tokens: "many", output_tokens: -1 } }],
  ] as const) {
    it(`${name}: no made-up usage chunk, and a log that says the answer reported none rather than a cost of 0`, async () => {
      stream(usage);
      const { data, response } = await client(providers.cohere())
        .chat.completions.create({ model: "command-r-08-2024", messages: [{ role: "user", content: "hi" }], stream: true, stream_options: { include_usage: true } })
        .withResponse();
      const chunks = [];
      for await (const chunk of data) chunks.push(chunk);
      expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("Hello");
      expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("stop");
      expect(chunks.some((chunk) => chunk.usage)).toBe(false);
      const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
      expect(record.costUsd).toBeNull();
      expect(record.costNote).toMatch(/usage/);
    });
  }

  it("counts Cohere did report are logged and priced", async () => {
    stream({ billed_units: { input_tokens: 3, output_tokens: 2 } });
    const { data, response } = await client(providers.cohere())
      .chat.completions.create({ model: "command-r-08-2024", messages: [{ role: "user", content: "hi" }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    const chunks = [];
    for await (const chunk of data) chunks.push(chunk);
    expect(chunks.at(-1)?.usage).toEqual({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ promptTokens: 3, completionTokens: 2 });
    expect(record.costUsd).toBeCloseTo((3 * 0.15 + 2 * 0.6) / 1e6, 12);
  });
});

describe("upstream errors without Google's error shape", () => {
  it("Vertex AI's are named Vertex AI, with the status kept", async () => {
    next = { status: 503, headers: { "content-type": "text/html" }, body: "<html><body>Service Unavailable</body></html>" };
    const refused = await failure(client(providers.vertex(), vertexKey()).embeddings.create({ model: "text-embedding-005", input: "a" }));
    expect(refused).toMatchObject({ status: 503, message: "Google Vertex AI returned HTTP 503: <html><body>Service Unavailable</body></html>" });
    next = { status: 503, headers: { "content-type": "text/html" }, body: "<html><body>Service Unavailable</body></html>" };
    const gemini = await failure(client(providers.gemini()).embeddings.create({ model: "gemini-embedding-001", input: "a" }));
    expect(gemini.message).toBe("Google Gemini returned HTTP 503: <html><body>Service Unavailable</body></html>");
  });
});

describe("Responses on Cohere, streamed", () => {
  const event = (type: string, body: object): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;

  async function responsesStream(): Promise<string[]> {
    const answer = await fetch(`${gateway.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer upstream-key", "x-gateway-api-key": gateway.adminKey, ...providers.cohere() },
      body: JSON.stringify({ model: "command-r-08-2024", input: "hi", stream: true }),
    });
    expect(answer.status).toBe(200);
    return [...(await answer.text()).matchAll(/^event: (.+)$/gm)].map((match) => match[1]!);
  }

  it("a stream that ends before Cohere's message-end is an error, never response.completed", async () => {
    next = {
      headers: { "content-type": "text/event-stream" },
      body: event("message-start", { id: "m1", delta: { message: { role: "assistant" } } }) + event("content-delta", { index: 0, delta: { message: { content: { type: "text", text: "Hel" } } } }),
    };
    const events = await responsesStream();
    expect(events).not.toContain("response.completed");
    expect(events.at(-1)).toMatch(/^(error|response\.failed)$/);
    await stillServes();
  });

  it("a whole stream still completes", async () => {
    next = {
      headers: { "content-type": "text/event-stream" },
      body:
        event("message-start", { id: "m1", delta: { message: { role: "assistant" } } }) +
        event("content-delta", { index: 0, delta: { message: { content: { type: "text", text: "Hello" } } } }) +
        event("message-end", { delta: { finish_reason: "COMPLETE", usage: { billed_units: { input_tokens: 1, output_tokens: 1 } } } }),
    };
    expect((await responsesStream()).at(-1)).toBe("response.completed");
  });
});

describe("Cohere chat streams that report an error", () => {
  it("the client gets the error, through the openai client, and the log keeps it", async () => {
    next = {
      headers: { "content-type": "text/event-stream" },
      body: `event: message-start\ndata: ${JSON.stringify({ type: "message-start", id: "m1", delta: { message: { role: "assistant" } } })}\n\nevent: error\ndata: {"error":{"message":"internal server error"}}\n\n`,
    };
    const { data, response } = await client(providers.cohere())
      .chat.completions.create({ model: "command-r-08-2024", messages: [{ role: "user", content: "hi" }], stream: true })
      .withResponse();
    const failed = await (async () => {
      for await (const chunk of data) void chunk;
    })().then(
      () => null,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    expect((failed as Error).message).toContain("Cohere's stream reported an error: internal server error");
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record.errorCode).toBe("upstream_stream_error");
    await stillServes();
  });
});

describe("Cohere chat answers without a message", () => {
  it("a 502 naming Cohere, on chat completions and on Responses, instead of an empty completion", async () => {
    answerWith({ id: "a1", finish_reason: "COMPLETE", usage: { billed_units: { input_tokens: 2, output_tokens: 0 } } });
    const chat = await failure(client(providers.cohere()).chat.completions.create({ model: "command-r-08-2024", messages: [{ role: "user", content: "hi" }] }));
    expect(chat).toMatchObject({ status: 502, message: "Cohere answered with no message; the gateway does not pass it on." });
    answerWith({ id: "a1", message: "not an object" });
    const responses = await failure(client(providers.cohere()).responses.create({ model: "command-r-08-2024", input: "hi" }));
    expect(responses).toMatchObject({ status: 502, message: "Cohere answered with no message; the gateway does not pass it on." });
    await stillServes();
  });
});

describe("Cohere chat requests with a past tool call's arguments not as text", () => {
  it("is a 400 naming the arguments, and nothing reaches Cohere", async () => {
    const before = upstream.received.length;
    const answer = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer upstream-key", "x-gateway-api-key": gateway.adminKey, ...providers.cohere() },
      body: JSON.stringify({
        model: "command-r-08-2024",
        messages: [
          { role: "user", content: "weather?" },
          { role: "assistant", tool_calls: [{ id: "t1", type: "function", function: { name: "get_weather", arguments: { city: "Paris" } } }] },
          { role: "tool", tool_call_id: "t1", content: "sunny" },
        ],
      }),
    });
    expect(answer.status).toBe(400);
    const body = (await answer.json()) as { error: { param: string; message: string } };
    expect(body.error.param).toBe("messages[1].tool_calls[0].function.arguments");
    expect(body.error.message).toContain("JSON string");
    expect(upstream.received.length).toBe(before);
  });
});
