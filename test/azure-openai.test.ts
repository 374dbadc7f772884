import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { call, startGateway, startUpstream, storedLog, type RunningGateway } from "./support/harness.ts";
import { openaiContractProblems } from "./support/contract.ts";
import { startRecordingUpstream, type RecordingUpstream } from "./support/recording-upstream.ts";

const AZURE_KEY = "azure-key-0123456789abcdef";
const DEPLOYMENT = "gpt-4o-mini";

let gateway: RunningGateway;
let upstream: LLMock;
let recording: RecordingUpstream;

beforeAll(async () => {
  openaiContractProblems("CreateChatCompletionResponse", {});
  openaiContractProblems("CreateChatCompletionStreamResponse", {});
  openaiContractProblems("CreateEmbeddingResponse", {});
  upstream = await startUpstream();
  upstream.onMessage("azure hello", { content: "Hello from Azure!", usage: { prompt_tokens: 8, completion_tokens: 4, total_tokens: 12 } });
  upstream.onMessage("azure stream", { content: "Streaming from Azure now" });
  upstream.onEmbedding("azure embed", { embedding: [0.1, 0.2, 0.3] });
  recording = await startRecordingUpstream(() => ({ object: "list", data: [], has_more: false }));
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await recording?.close();
});

function azureHeaders(host: string, extra: Record<string, string> = {}): Record<string, string> {
  return { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "azure-openai", "x-gateway-custom-host": host, ...extra };
}

function client(extra: Record<string, string> = {}): OpenAI {
  return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: AZURE_KEY, defaultHeaders: azureHeaders(upstream.url, extra), maxRetries: 0 });
}

describe("Azure OpenAI through the official openai client", () => {
  it("sends chat to the deployment's path with the api-version, and logs provider, tokens and cost", async () => {
    const { data, response } = await client()
      .chat.completions.create({ model: DEPLOYMENT, messages: [{ role: "user", content: "azure hello" }] })
      .withResponse();
    expect(openaiContractProblems("CreateChatCompletionResponse", data)).toEqual([]);
    expect(data.choices[0]?.message.content).toBe("Hello from Azure!");
    const seen = upstream.getLastRequest()!;
    expect(seen.path).toBe(`/openai/deployments/${DEPLOYMENT}/chat/completions?api-version=2024-10-21`);
    expect(seen.headers["api-key"]).toBeDefined();
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ provider: "azure-openai", model: DEPLOYMENT, promptTokens: 8, completionTokens: 4 });
    // A deployment named after its model is priced from the Azure block of the table.
    expect(record.costUsd).toBeGreaterThan(0);
    expect(JSON.stringify(record)).not.toContain(AZURE_KEY);
  });

  it("relays a stream, usage asked for the log", async () => {
    const stream = await client({ "x-gateway-azure-api-version": "2025-04-01-preview" }).chat.completions.create({
      model: DEPLOYMENT,
      messages: [{ role: "user", content: "azure stream" }],
      stream: true,
    });
    let text = "";
    for await (const chunk of stream) {
      expect(openaiContractProblems("CreateChatCompletionStreamResponse", chunk), JSON.stringify(chunk)).toEqual([]);
      text += chunk.choices[0]?.delta.content ?? "";
    }
    expect(text).toBe("Streaming from Azure now");
    const seen = upstream.getLastRequest()!;
    expect(seen.path).toBe(`/openai/deployments/${DEPLOYMENT}/chat/completions?api-version=2025-04-01-preview`);
    expect((seen.body as { stream_options?: { include_usage?: boolean } }).stream_options?.include_usage).toBe(true);
  });

  it("sends embeddings to the deployment named by the field", async () => {
    const embedded = await client({ "x-gateway-azure-deployment": "embedder-prod" }).embeddings.create({ model: "text-embedding-3-small", input: "azure embed", encoding_format: "float" });
    expect(openaiContractProblems("CreateEmbeddingResponse", embedded)).toEqual([]);
    expect(embedded.data[0]?.embedding).toEqual([0.1, 0.2, 0.3]);
    expect(upstream.getLastRequest()!.path).toBe("/openai/deployments/embedder-prod/embeddings?api-version=2024-10-21");
  });

  it("sends resource-wide operations and the pass-through under /openai with the key in api-key", async () => {
    const files = await call(gateway, "GET", "/v1/files?purpose=batch", { headers: { ...azureHeaders(recording.url.replace(/\/v1$/, "")), authorization: `Bearer ${AZURE_KEY}` } });
    expect(files.status).toBe(200);
    const passed = await call(gateway, "GET", "/v1/assistants?limit=3", {
      headers: { ...azureHeaders(recording.url.replace(/\/v1$/, ""), { "x-gateway-azure-auth": "entra" }), authorization: `Bearer ${AZURE_KEY}` },
    });
    expect(passed.status).toBe(200);
    const [filesRequest, passRequest] = recording.received.slice(-2);
    expect(filesRequest).toMatchObject({ method: "GET", path: "/openai/files?purpose=batch&api-version=2024-10-21" });
    expect(filesRequest!.headers["api-key"]).toBe(AZURE_KEY);
    expect(filesRequest!.headers.authorization).toBeUndefined();
    expect(passRequest).toMatchObject({ method: "GET", path: "/openai/assistants?limit=3&api-version=2024-10-21" });
    expect(passRequest!.headers.authorization).toBe(`Bearer ${AZURE_KEY}`);
    expect(passRequest!.headers["api-key"]).toBeUndefined();
  });

  it("needs a base URL: a custom host or the resource field, checked by pattern", async () => {
    const headers = { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "azure-openai" };
    const none = await call(gateway, "POST", "/v1/chat/completions", { headers, body: { model: DEPLOYMENT, messages: [{ role: "user", content: "azure hello" }] } });
    expect(none.status).toBe(400);
    const bad = await call(gateway, "POST", "/v1/chat/completions", {
      headers: { ...headers, "x-gateway-azure-resource": "evil.example/x" },
      body: { model: DEPLOYMENT, messages: [{ role: "user", content: "azure hello" }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe("x-gateway-azure-resource");
  });
});
