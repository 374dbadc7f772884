import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI, { toFile } from "openai";
import { sql } from "kysely";
import { call, startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";
import { openaiContractProblems } from "./support/contract.ts";
import { startVertexBatches, type VertexBatches } from "./support/vertex-batches.ts";
import { computeCostUsd } from "../src/operation/cost.ts";

/** `POST /v1/batches` over a file the gateway keeps, run as a Vertex AI batch prediction job over Cloud Storage. */

const MODEL = "gemini-2.5-flash";
const TOKEN = "ya29.vertex-batch-token";
let gateway: RunningGateway;
let upstream: LLMock;
let vertex: VertexBatches;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("capital of France", { content: "Paris.", usage: { promptTokenCount: 2000, candidatesTokenCount: 100 } });
  upstream.onMessage("capital of Spain", { content: "Madrid.", usage: { promptTokenCount: 1000, candidatesTokenCount: 50 } });
  vertex = await startVertexBatches((model) => `${upstream.url}/v1/projects/my-project-123/locations/us-central1/publishers/google/models/${model}:generateContent`, TOKEN);
  gateway = await startGateway();
  openaiContractProblems("Batch", {});
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await vertex?.close();
});

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return {
    "x-gateway-api-key": gateway.adminKey,
    "x-gateway-provider": "vertex",
    "x-gateway-custom-host": vertex.url,
    "x-gateway-vertex-project": "my-project-123",
    "x-gateway-vertex-location": "us-central1",
    "x-gateway-vertex-batch-bucket": "batch-bucket",
    ...extra,
  };
}

const client = (extra: Record<string, string> = {}) => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: TOKEN, maxRetries: 0, defaultHeaders: headers(extra) });

const line = (customId: string, content: string, body: Record<string, unknown> = {}) =>
  JSON.stringify({ custom_id: customId, method: "POST", url: "/v1/chat/completions", body: { model: MODEL, max_tokens: 100, messages: [{ role: "system", content: "Be brief." }, { role: "user", content }], ...body } });

async function upload(lines: string[]): Promise<string> {
  return (await client().files.create({ file: await toFile(Buffer.from(`${lines.join("\n")}\n`), "input.jsonl"), purpose: "batch" })).id;
}

describe("a batch on Vertex AI batch prediction, through the official openai client", () => {
  it("writes Gemini request lines to Cloud Storage, runs the job, reads the predictions back translated, and logs each line once at the batch rate", async () => {
    const openai = client();
    const batch = await openai.batches.create({ input_file_id: await upload([line("fr", "capital of France"), line("es", "capital of Spain"), line("bad", "poison")]), endpoint: "/v1/chat/completions", completion_window: "24h" });
    expect(batch).toMatchObject({ object: "batch", status: "in_progress", request_counts: { total: 3, completed: 0, failed: 0 } });

    const uploaded = vertex.received.find((request) => request.path.startsWith("/upload/storage/v1/b/batch-bucket/o"))!;
    expect(new URL(uploaded.path, "http://x").searchParams.get("name")).toBe(`gateway-batches/${batch.id}/input.jsonl`);
    const requests = uploaded.body.trim().split("\n").map((text) => JSON.parse(text).request);
    expect(requests[0]).toMatchObject({ systemInstruction: { parts: [{ text: "Be brief." }] }, contents: [{ role: "user", parts: [{ text: "capital of France" }] }], generationConfig: { maxOutputTokens: 100 }, labels: { gateway_line: "l0000000000" } });
    const created = JSON.parse(vertex.received.find((request) => request.method === "POST" && request.path.endsWith("/batchPredictionJobs"))!.body);
    expect(created).toMatchObject({
      model: `publishers/google/models/${MODEL}`,
      inputConfig: { instancesFormat: "jsonl", gcsSource: { uris: [`gs://batch-bucket/gateway-batches/${batch.id}/input.jsonl`] } },
      outputConfig: { predictionsFormat: "jsonl", gcsDestination: { outputUriPrefix: `gs://batch-bucket/gateway-batches/${batch.id}/output` } },
    });

    expect((await openai.batches.retrieve(batch.id)).status).toBe("in_progress");
    const reads = await Promise.all([1, 2].map(() => openai.batches.retrieve(batch.id)));
    for (const read of reads) expect(read).toMatchObject({ status: "completed", request_counts: { total: 3, completed: 2, failed: 1 } });
    expect(openaiContractProblems("Batch", reads[0])).toEqual([]);

    const output = (await (await openai.files.content(reads[0]!.output_file_id!)).text()).trim().split("\n").map((text) => JSON.parse(text));
    expect(output.map((entry) => entry.custom_id).sort()).toEqual(["es", "fr"]);
    const fr = output.find((entry) => entry.custom_id === "fr");
    expect(fr).toMatchObject({ error: null, response: { status_code: 200, body: { object: "chat.completion", choices: [{ message: { role: "assistant", content: "Paris." } }], usage: { prompt_tokens: 2000, completion_tokens: 100 } } } });
    expect(openaiContractProblems("CreateChatCompletionResponse", fr.response.body)).toEqual([]);
    const errors = (await (await openai.files.content(reads[0]!.error_file_id!)).text()).trim().split("\n").map((text) => JSON.parse(text));
    expect(errors).toEqual([expect.objectContaining({ custom_id: "bad", response: expect.objectContaining({ status_code: 400 }) })]);

    await gateway.flushLogs();
    const { rows } = await sql<{ prompt_tokens: number; cost_usd: number | null; metadata: string }>`
      select prompt_tokens, cost_usd, metadata from logs where route = 'createBatch' and path = '/v1/chat/completions' and provider = 'vertex'`.execute(gateway.gateway.deps.store.db);
    const lines = rows.map((row) => ({ ...row, metadata: JSON.parse(row.metadata) as Record<string, string> })).filter((row) => row.metadata.batch_id === batch.id);
    expect(lines.map((row) => row.metadata.custom_id).sort()).toEqual(["bad", "es", "fr"]);
    const onDemand = computeCostUsd("vertex", MODEL, { promptTokens: 2000, completionTokens: 100, totalTokens: 2100, cachedTokens: 0, reasoningTokens: 0 })!;
    expect(onDemand).toBeGreaterThan(0);
    const france = lines.find((row) => row.metadata.custom_id === "fr")!;
    expect(france.prompt_tokens).toBe(2000);
    expect(france.cost_usd).toBeCloseTo(onDemand / 2, 10);
  });

  it("cancels a running job: cancelling, then cancelled", async () => {
    const openai = client();
    const batch = await openai.batches.create({ input_file_id: await upload([line("a", "capital of France")]), endpoint: "/v1/chat/completions", completion_window: "24h" });
    expect((await openai.batches.cancel(batch.id)).status).toBe("cancelling");
    expect(vertex.received.some((request) => request.method === "POST" && request.path.endsWith(":cancel"))).toBe(true);
    expect((await openai.batches.retrieve(batch.id)).status).toBe("cancelling");
    const stopped = await openai.batches.retrieve(batch.id);
    expect(stopped).toMatchObject({ status: "cancelled", request_counts: { total: 1, completed: 0, failed: 1 } });
    // The job wrote no predictions: the request not run is in the error file, as OpenAI lists it.
    const errors = (await (await openai.files.content(stopped.error_file_id!)).text()).trim().split("\n").map((text) => JSON.parse(text));
    expect(errors).toEqual([expect.objectContaining({ response: null, error: expect.objectContaining({ code: "batch_canceled" }) })]);
  });
});

describe("bad input to a batch on Vertex AI", () => {
  const create = async (lines: string[], extra: Record<string, string> = {}) =>
    call(gateway, "POST", "/v1/batches", { body: { input_file_id: await upload(lines), endpoint: "/v1/chat/completions", completion_window: "24h" }, headers: { ...headers(extra), authorization: `Bearer ${TOKEN}` } });

  it("refuses lines of two models and names a missing bucket, before anything is written", async () => {
    const uploads = vertex.received.filter((request) => request.path.startsWith("/upload/")).length;
    const twoModels = await create([line("a", "capital of France"), line("b", "capital of Spain", { model: "gemini-2.5-pro" })]);
    expect(twoModels.status).toBe(400);
    expect(twoModels.body.error.message).toContain("one model");
    const noBucket = await create([line("a", "capital of France")], { "x-gateway-vertex-batch-bucket": "" });
    expect(noBucket.status).toBe(400);
    expect(noBucket.body.error.param).toBe("x-gateway-vertex-batch-bucket");
    expect(vertex.received.filter((request) => request.path.startsWith("/upload/")).length).toBe(uploads);
  });
});
