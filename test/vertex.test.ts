/**
 * Google Vertex AI through the gateway: the official `openai` client speaks OpenAI to the
 * gateway, which mints an access token from a service-account key at a loopback token endpoint
 * and speaks Gemini's `generateContent` on Vertex's project/location paths to aimock.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { openaiContractProblems } from "./support/contract.ts";
import { startGoogleTokenServer, type GoogleTokenServer, type TestServiceAccount } from "./support/google-token-server.ts";
import { call, startGateway, storedLog, type RunningGateway } from "./support/harness.ts";

let gateway: RunningGateway;
let upstream: LLMock;
let tokens: GoogleTokenServer;
let account: TestServiceAccount;

const MINTED = "ya29.vertex-minted-token";
const VERTEX_PATH = "/v1/projects/my-project-123/locations/us-central1/publishers/google/models/gemini-2.5-flash";

beforeAll(async () => {
  // aimock redacts credentials from its journal but can refuse any key but one: only the minted token gets an answer.
  upstream = await guardedUpstream(MINTED);
  upstream.onMessage("vertex stream", { content: "One two three four five six", usage: { promptTokenCount: 9, candidatesTokenCount: 6 } });
  tokens = await startGoogleTokenServer();
  account = tokens.account("gateway@my-project-123.iam.gserviceaccount.com");
  tokens.answer({ accessToken: MINTED, expiresIn: 3600 });
  gateway = await startGateway();
  expect(openaiContractProblems("CreateChatCompletionResponse", {})).not.toEqual([]);
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await tokens?.close();
});

async function guardedUpstream(acceptedToken: string): Promise<LLMock> {
  const mock = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent", auth: { apiKeys: [acceptedToken] } });
  mock.onMessage("vertex plain", { content: "Bonjour de Vertex!", usage: { promptTokenCount: 12, candidatesTokenCount: 4 } });
  await mock.start();
  return mock;
}

function vertexClient(apiKey: string, headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey,
    maxRetries: 0,
    defaultHeaders: {
      "x-gateway-api-key": gateway.adminKey,
      "x-gateway-provider": "vertex",
      "x-gateway-custom-host": `${upstream.url}/v1`,
      "x-gateway-vertex-project": "my-project-123",
      "x-gateway-vertex-location": "us-central1",
      ...headers,
    },
  });
}

describe("Vertex AI chat completions through the gateway", () => {
  it("mints a token from the service-account key, calls the project's model path with it, and logs tokens and cost", async () => {
    const grantsBefore = tokens.grants.length;
    const { data, response } = await vertexClient(account.keyJson)
      .chat.completions.create({ model: "gemini-2.5-flash", messages: [{ role: "system", content: "Be kind." }, { role: "user", content: "vertex plain" }] })
      .withResponse();
    expect(openaiContractProblems("CreateChatCompletionResponse", data)).toEqual([]);
    expect(data.choices[0]?.message.content).toBe("Bonjour de Vertex!");
    expect(data.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 });
    expect(response.headers.get("x-gateway-provider")).toBe("vertex");

    const seen = upstream.getLastRequest();
    expect(seen?.path).toBe(`${VERTEX_PATH}:generateContent`);
    expect(seen?.headers.authorization).toBeDefined();
    expect(seen?.headers["x-goog-api-key"]).toBeUndefined();
    expect((seen?.body as { messages: unknown[] }).messages[0]).toEqual({ role: "system", content: "Be kind." });
    expect(tokens.grants.length - grantsBefore).toBe(1);
    expect(tokens.grants.at(-1)?.claims.iss).toBe(account.email);

    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ provider: "vertex", model: "gemini-2.5-flash", status: 200, success: true, promptTokens: 12, completionTokens: 4 });
    // Vertex's gemini-2.5-flash: $0.30 in, $2.50 out per million tokens.
    expect(record.costUsd).toBeCloseTo((12 * 0.3 + 4 * 2.5) / 1e6, 12);
    const logged = JSON.stringify(record);
    expect(logged).not.toContain("PRIVATE KEY");
    expect(logged).not.toContain(MINTED);
  });

  it("relays a stream on the SSE path with the cached token, and logs its usage", async () => {
    const grantsBefore = tokens.grants.length;
    const { data: stream, response } = await vertexClient(account.keyJson)
      .chat.completions.create({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "vertex stream" }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    for (const chunk of chunks) expect(openaiContractProblems("CreateChatCompletionStreamResponse", chunk)).toEqual([]);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("One two three four five six");
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("stop");
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 6, total_tokens: 15 } });
    const seen = upstream.getLastRequest();
    expect(seen?.path).toBe(`${VERTEX_PATH}:streamGenerateContent?alt=sse`);
    // The first test's token is still good: no new exchange.
    expect(tokens.grants.length).toBe(grantsBefore);

    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ provider: "vertex", stream: true, success: true, promptTokens: 9, completionTokens: 6 });
    expect(record.costUsd).toBeCloseTo((9 * 0.3 + 6 * 2.5) / 1e6, 12);
  });

  it("sends a bearer value that is not JSON as the access token itself", async () => {
    const own = await guardedUpstream("ya29.client-own-token");
    try {
      const grantsBefore = tokens.grants.length;
      const request = { model: "gemini-2.5-flash", messages: [{ role: "user" as const, content: "vertex plain" }] };
      const headers = { "x-gateway-custom-host": `${own.url}/v1` };
      const answer = await vertexClient("ya29.client-own-token", headers).chat.completions.create(request);
      expect(answer.choices[0]?.message.content).toBe("Bonjour de Vertex!");
      await expect(vertexClient("ya29.another-token", headers).chat.completions.create(request)).rejects.toMatchObject({ status: 401 });
      expect(tokens.grants.length).toBe(grantsBefore);
    } finally {
      await own.stop();
    }
  });

  it("reaches the upstream only with the token it accepts: another access token is refused with 401", async () => {
    await expect(vertexClient("ya29.stale").chat.completions.create({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "vertex plain" }] })).rejects.toMatchObject({ status: 401 });
  });

  it("serves the Responses API through the chat bridge on the same path and token", async () => {
    const answer = await vertexClient(account.keyJson).responses.create({ model: "gemini-2.5-flash", input: "vertex plain" });
    expect(answer.output_text).toBe("Bonjour de Vertex!");
    expect(upstream.getLastRequest()?.path).toBe(`${VERTEX_PATH}:generateContent`);
  });

  it("answers 400 naming the header when the project or location is missing or malformed", async () => {
    const request = { model: "gemini-2.5-flash", messages: [{ role: "user" as const, content: "vertex plain" }] };
    const noProject = new OpenAI({
      baseURL: `${gateway.url}/v1`,
      apiKey: "ya29.x",
      maxRetries: 0,
      defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "vertex", "x-gateway-custom-host": `${upstream.url}/v1`, "x-gateway-vertex-location": "us-central1" },
    });
    await expect(noProject.chat.completions.create(request)).rejects.toMatchObject({ status: 400, error: { param: "x-gateway-vertex-project" } });
    await expect(vertexClient("ya29.x", { "x-gateway-vertex-location": "us-central1.evil.example" }).chat.completions.create(request)).rejects.toMatchObject({
      status: 400,
      error: { param: "x-gateway-vertex-location" },
    });
  });

  it("serves a virtual key that stores the service-account key with its project and location", async () => {
    const created = await call(gateway, "POST", "/v1/virtual-keys", {
      body: { name: "vertex eu", provider: "vertex", key: account.keyJson, custom_host: `${upstream.url}/v1`, fields: { vertex_project: "my-project-123", vertex_location: "europe-west4" } },
    });
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.body)).not.toContain("PRIVATE KEY");
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gateway-api-key": gateway.adminKey } });
    const { data, response } = await client.chat.completions
      .create({ model: `@${created.body.slug}/gemini-2.5-flash`, messages: [{ role: "user", content: "vertex plain" }] })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe("Bonjour de Vertex!");
    const seen = upstream.getLastRequest();
    expect(seen?.path).toBe("/v1/projects/my-project-123/locations/europe-west4/publishers/google/models/gemini-2.5-flash:generateContent");
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ provider: "vertex", virtualKeyId: created.body.id });
    expect(JSON.stringify(record)).not.toContain("PRIVATE KEY");
  });
});
