/**
 * `POST /v1/embeddings` on the providers with their own embedding APIs, through the official
 * openai client: Gemini (aimock's `:embedContent`; the stand-in's `:batchEmbedContents`), Vertex
 * AI `:predict`, Bedrock InvokeModel (Titan, Cohere Embed) and Cohere `/v2/embed` (the stand-in,
 * `support/beyond-chat-upstream.ts`). Each answer is checked in OpenAI's shape (floats, and base64
 * decoded by the client), the upstream request in the provider's, and the log's tokens and cost,
 * or its cost note where the provider reports no usage. Fields a provider cannot take are a 400
 * naming field and provider.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { GoogleGenAI } from "@google/genai";
import { DEFAULT_WORKSPACE_ID } from "../src/control-plane/auth-context.ts";
import { gatewayContractProblems } from "./support/contract.ts";
import { call, startGateway, startUpstream, storedLogOf, type RunningGateway } from "./support/harness.ts";
import { startGoogleTokenServer, type GoogleTokenServer } from "./support/google-token-server.ts";
import { startBeyondChatUpstream, vectorOf, wordsOf } from "./support/beyond-chat-upstream.ts";

const AWS = {
  "x-gateway-aws-access-key-id": "AKIAIOSFODNN7EXAMPLE",
  "x-gateway-aws-secret-access-key": "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",
  "x-gateway-aws-region": "us-east-1",
};

let gateway: RunningGateway;
let aimock: LLMock;
let standIn: Awaited<ReturnType<typeof startBeyondChatUpstream>>;
let tokens: GoogleTokenServer;

beforeAll(async () => {
  tokens = await startGoogleTokenServer();
  tokens.answer({ accessToken: "ya29.embeddings", expiresIn: 3600 });
  aimock = await startUpstream();
  aimock.onEmbedding("gemini one input", { embedding: [0.5, -0.25, 0.125] });
  standIn = await startBeyondChatUpstream();
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await aimock?.stop();
  await standIn?.close();
  await tokens?.close();
});

type Headers = Record<string, string>;

const headersFor = {
  gemini: (host: string): Headers => ({ "x-gateway-provider": "gemini", "x-gateway-custom-host": `${host}/v1beta` }),
  vertex: (): Headers => ({ "x-gateway-provider": "vertex", "x-gateway-custom-host": standIn.url, "x-gateway-vertex-project": "embeddings-project", "x-gateway-vertex-location": "us-central1" }),
  bedrock: (): Headers => ({ "x-gateway-provider": "bedrock", "x-gateway-custom-host": standIn.base, ...AWS }),
  cohere: (): Headers => ({ "x-gateway-provider": "cohere", "x-gateway-custom-host": standIn.base }),
};

function client(headers: Headers, apiKey = "upstream-key"): OpenAI {
  return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey, maxRetries: 0, defaultHeaders: { "x-gateway-api-key": gateway.adminKey, ...headers } });
}

const vertexKey = (): string => tokens.account("embeddings@embeddings-project.iam.gserviceaccount.com").keyJson;

const logOf = (response: Pick<Response, "headers">) => storedLogOf(gateway, response);

/** The gateway's refusal of a raw request: status, message and param. */
async function refused(headers: Headers, body: unknown): Promise<{ status: number; message: string; param: string | null }> {
  const answer = await call(gateway, "POST", "/v1/embeddings", { body, headers: { authorization: "Bearer upstream-key", ...headers } });
  return { status: answer.status, message: answer.body?.error?.message, param: answer.body?.error?.param ?? null };
}

describe("embeddings on Gemini", () => {
  it("sends one input to :embedContent (aimock), answers base64 the client decodes, and logs that Gemini reported no usage", async () => {
    const { data, response } = await client(headersFor.gemini(aimock.url)).embeddings.create({ model: "gemini-embedding-001", input: "gemini one input" }).withResponse();
    // The client asked for base64 (its default) and decoded it: the floats survive as float32.
    expect(data.data).toEqual([{ object: "embedding", index: 0, embedding: [0.5, -0.25, 0.125] }]);
    expect(data.model).toBe("gemini-embedding-001");
    expect(data.usage).toBeUndefined();
    expect(aimock.getLastRequest()?.path).toBe("/v1beta/models/gemini-embedding-001:embedContent");
    const record = await logOf(response);
    expect(record).toMatchObject({ route: "createEmbedding", provider: "gemini", promptTokens: 0, costUsd: null, costNote: "the answer reported no usage" });
  });

  it("sends several inputs to :batchEmbedContents with outputDimensionality, in order", async () => {
    const input = ["first text here", "second"];
    const { data } = await client(headersFor.gemini(standIn.base)).embeddings.create({ model: "gemini-embedding-001", input, dimensions: 3, encoding_format: "float" }).withResponse();
    expect(data.data.map((item) => item.embedding)).toEqual([vectorOf(input[0]!, 3), vectorOf(input[1]!, 3)]);
    expect(standIn.received.at(-1)?.path).toBe("/v1beta/models/gemini-embedding-001:batchEmbedContents");
    expect(standIn.lastBody()).toEqual({
      requests: input.map((text) => ({ model: "models/gemini-embedding-001", content: { parts: [{ text }] }, outputDimensionality: 3 })),
    });
  });

  it("refuses token arrays and fields Gemini cannot take with a 400 naming field and provider", async () => {
    const tokensAsked = await refused(headersFor.gemini(standIn.base), { model: "gemini-embedding-001", input: [1, 2, 3] });
    expect(tokensAsked).toMatchObject({ status: 400, param: "input" });
    expect(tokensAsked.message).toContain("Google Gemini");
    const unknown = await refused(headersFor.gemini(standIn.base), { model: "gemini-embedding-001", input: "x", input_type: "search_query" });
    expect(unknown).toMatchObject({ status: 400, param: "input_type" });
    expect(unknown.message).toContain("Google Gemini");
  });
});

describe("embeddings on Vertex AI", () => {
  it("predicts with one instance per input, sums the reported token counts, and prices them", async () => {
    const input = ["vertex has four words", "and three more"];
    const { data, response } = await client(headersFor.vertex(), vertexKey())
      .embeddings.create({ model: "text-embedding-005", input, dimensions: 5, encoding_format: "float" })
      .withResponse();
    expect(data.data.map((item) => item.embedding)).toEqual(input.map((text) => vectorOf(text, 5)));
    expect(data.usage).toEqual({ prompt_tokens: 7, total_tokens: 7 });
    const seen = standIn.received.at(-1)!;
    expect(seen.path).toBe("/v1/projects/embeddings-project/locations/us-central1/publishers/google/models/text-embedding-005:predict");
    expect(seen.headers.authorization).toBe("Bearer ya29.embeddings");
    expect(standIn.lastBody()).toEqual({ instances: input.map((content) => ({ content })), parameters: { outputDimensionality: 5 } });
    // text-embedding-005 is billed per character, which the price table does not hold: the log says so.
    expect(await logOf(response)).toMatchObject({ provider: "vertex", promptTokens: 7, totalTokens: 7, costUsd: null, costNote: "no price for vertex/text-embedding-005 in the price table" });

    const gemini = await client(headersFor.vertex(), vertexKey()).embeddings.create({ model: "gemini-embedding-001", input: "one two three" }).withResponse();
    expect(gemini.data.data[0]?.embedding).toEqual(vectorOf("one two three"));
    const geminiRecord = await logOf(gemini.response);
    expect(geminiRecord).toMatchObject({ promptTokens: 3, costNote: null });
    expect(geminiRecord.costUsd).toBeCloseTo((3 * 0.15) / 1e6, 12);
  });

  it("refuses several inputs for gemini-embedding-001, which takes one instance per request", async () => {
    const answer = await call(gateway, "POST", "/v1/embeddings", { body: { model: "gemini-embedding-001", input: ["a", "b"] }, headers: { authorization: `Bearer ${vertexKey()}`, ...headersFor.vertex() } });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ param: "input" });
    expect(answer.body.error.message).toContain("Google Vertex AI");
  });
});

describe("embeddings on Bedrock", () => {
  it("embeds one input with Titan Text Embeddings v2, dimensions mapped, tokens and cost logged", async () => {
    const text = "titan embeds five words";
    const { data, response } = await client(headersFor.bedrock()).embeddings.create({ model: "amazon.titan-embed-text-v2:0", input: text, dimensions: 256 }).withResponse();
    expect(data.data[0]?.embedding).toEqual(vectorOf(text, 256));
    expect(data.usage).toEqual({ prompt_tokens: 4, total_tokens: 4 });
    const seen = standIn.received.at(-1)!;
    expect(seen.path).toBe("/model/amazon.titan-embed-text-v2%3A0/invoke");
    expect(String(seen.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request/);
    expect(standIn.lastBody()).toEqual({ inputText: text, dimensions: 256 });
    const record = await logOf(response);
    expect(record).toMatchObject({ provider: "bedrock", promptTokens: 4 });
    expect(record.costUsd).toBeCloseTo((4 * 0.02) / 1e6, 12);
  });

  it("refuses several inputs for Titan (one input per call) and dimensions it does not make", async () => {
    const several = await refused(headersFor.bedrock(), { model: "amazon.titan-embed-text-v2:0", input: ["a", "b"] });
    expect(several).toMatchObject({ status: 400, param: "input" });
    expect(several.message).toContain("AWS Bedrock");
    const dimensions = await refused(headersFor.bedrock(), { model: "amazon.titan-embed-text-v2:0", input: "a", dimensions: 300 });
    expect(dimensions).toMatchObject({ status: 400, param: "dimensions" });
    const other = await refused(headersFor.bedrock(), { model: "meta.llama3-1-8b-instruct-v1:0", input: "a" });
    expect(other).toMatchObject({ status: 400, param: "model" });
  });

  it("embeds several texts with Cohere Embed, input_type passed, and logs that Bedrock reported no usage", async () => {
    const input = ["cohere on bedrock", "second text"];
    const { data, response } = await client(headersFor.bedrock())
      .embeddings.create({ model: "cohere.embed-english-v3", input, encoding_format: "float", input_type: "search_query" } as OpenAI.EmbeddingCreateParams)
      .withResponse();
    expect(data.data.map((item) => item.embedding)).toEqual(input.map((text) => vectorOf(text)));
    expect(standIn.lastBody()).toEqual({ texts: input, input_type: "search_query", embedding_types: ["float"] });
    expect(await logOf(response)).toMatchObject({ promptTokens: 0, costUsd: null, costNote: "the answer reported no usage" });
    const dimensions = await refused(headersFor.bedrock(), { model: "cohere.embed-english-v3", input: "a", dimensions: 256 });
    expect(dimensions).toMatchObject({ status: 400, param: "dimensions" });
  });
});

describe("embeddings on Cohere", () => {
  it("embeds through /v2/embed with search_document by default, base64 decoded by the client, billed tokens logged and priced", async () => {
    const input = ["cohere native embed", "two words"];
    const { data, response } = await client(headersFor.cohere()).embeddings.create({ model: "embed-english-v3.0", input }).withResponse();
    expect(data.data.map((item) => item.embedding)).toEqual(input.map((text) => vectorOf(text)));
    const tokensBilled = input.reduce((sum, text) => sum + wordsOf(text), 0);
    expect(data.usage).toEqual({ prompt_tokens: tokensBilled, total_tokens: tokensBilled });
    const seen = standIn.received.at(-1)!;
    expect(seen.path).toBe("/v2/embed");
    expect(seen.headers.authorization).toBe("Bearer upstream-key");
    expect(standIn.lastBody()).toEqual({ model: "embed-english-v3.0", texts: input, input_type: "search_document", embedding_types: ["float"] });
    const record = await logOf(response);
    expect(record).toMatchObject({ provider: "cohere", promptTokens: tokensBilled });
    expect(record.costUsd).toBeCloseTo((tokensBilled * 0.1) / 1e6, 12);
  });

  it("checks the answer against the document, maps dimensions for Embed v4 only, and refuses a bad input_type", async () => {
    const answer = await call(gateway, "POST", "/v1/embeddings", { body: { model: "embed-v4.0", input: "v4 text", dimensions: 256, encoding_format: "float" }, headers: { authorization: "Bearer k", ...headersFor.cohere() } });
    expect(answer.status).toBe(200);
    expect(gatewayContractProblems("createEmbedding", 200, answer.body)).toEqual([]);
    expect(standIn.lastBody()).toMatchObject({ output_dimension: 256 });
    const v3 = await refused(headersFor.cohere(), { model: "embed-english-v3.0", input: "a", dimensions: 256 });
    expect(v3).toMatchObject({ status: 400, param: "dimensions" });
    expect(v3.message).toContain("Cohere");
    const inputType = await refused(headersFor.cohere(), { model: "embed-english-v3.0", input: "a", input_type: "anything" });
    expect(inputType).toMatchObject({ status: 400, param: "input_type" });
  });
});

describe("Google's embedContent in, a translated provider out", () => {
  it("embeds through @google/genai on Cohere: Gemini format in, Cohere's /v2/embed upstream, usageMetadata back", async () => {
    const google = new GoogleGenAI({ apiKey: "upstream-key", httpOptions: { baseUrl: gateway.url, headers: { "x-gateway-api-key": gateway.adminKey, ...headersFor.cohere() } } });
    const answer = await google.models.embedContent({ model: "embed-english-v3.0", contents: ["google sdk text", "second"] });
    expect(answer.embeddings?.map((embedding) => embedding.values)).toEqual([vectorOf("google sdk text"), vectorOf("second")]);
    expect(standIn.lastBody()).toEqual({ model: "embed-english-v3.0", texts: ["google sdk text", "second"], input_type: "search_document", embedding_types: ["float"] });
    await gateway.flushLogs();
    const { records } = await gateway.gateway.deps.store.logs.list({ workspaceId: DEFAULT_WORKSPACE_ID, limit: 1 });
    expect(records[0]).toMatchObject({ route: "batchEmbedContents", provider: "cohere", promptTokens: 4 });
    expect(records[0]?.costUsd).toBeCloseTo((4 * 0.1) / 1e6, 12);
  });
});
