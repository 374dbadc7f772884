import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI, { toFile } from "openai";
import { sql } from "kysely";
import { call, startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";
import { openaiContractProblems } from "./support/contract.ts";
import { startBedrockBatches, type BedrockBatches } from "./support/bedrock-batches.ts";
import { computeCostUsd } from "../src/operation/cost.ts";

/** `POST /v1/batches` over a file the gateway keeps, run as a Bedrock batch inference job over S3. */

const MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0";
const ROLE = "arn:aws:iam::123456789012:role/BedrockBatch";
let gateway: RunningGateway;
let upstream: LLMock;
let bedrock: BedrockBatches;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("capital of France", { content: "Paris.", usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 } });
  upstream.onMessage("capital of Spain", { content: "Madrid.", usage: { prompt_tokens: 500, completion_tokens: 50, total_tokens: 550 } });
  bedrock = await startBedrockBatches((model) => `${upstream.url}/model/${encodeURIComponent(model)}/converse`);
  gateway = await startGateway();
  openaiContractProblems("Batch", {});
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await bedrock?.close();
});

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return {
    "x-gateway-api-key": gateway.adminKey,
    "x-gateway-provider": "bedrock",
    "x-gateway-custom-host": bedrock.url,
    "x-gateway-aws-access-key-id": "AKIAIOSFODNN7EXAMPLE",
    "x-gateway-aws-secret-access-key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "x-gateway-aws-region": "us-east-1",
    "x-gateway-aws-batch-bucket": "batch-bucket",
    "x-gateway-aws-batch-role-arn": ROLE,
    ...extra,
  };
}

function client(extra: Record<string, string> = {}): OpenAI {
  return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: headers(extra) });
}

const line = (customId: string, content: string, body: Record<string, unknown> = {}) =>
  JSON.stringify({ custom_id: customId, method: "POST", url: "/v1/chat/completions", body: { model: MODEL, max_tokens: 200, messages: [{ role: "system", content: "Be brief." }, { role: "user", content }], ...body } });

async function upload(lines: string[], extra: Record<string, string> = {}): Promise<string> {
  return (await client(extra).files.create({ file: await toFile(Buffer.from(`${lines.join("\n")}\n`), "input.jsonl"), purpose: "batch" })).id;
}

describe("a batch on Bedrock batch inference, through the official openai client", () => {
  it("writes Converse records to S3, runs the job, reads the results back translated, and logs each line once at the batch rate", async () => {
    const openai = client();
    const fileId = await upload([line("fr", "capital of France"), line("es", "capital of Spain"), line("odd one", "poison")]);
    const batch = await openai.batches.create({ input_file_id: fileId, endpoint: "/v1/chat/completions", completion_window: "24h" });
    expect(batch).toMatchObject({ object: "batch", status: "in_progress", request_counts: { total: 3, completed: 0, failed: 0 } });
    expect(openaiContractProblems("Batch", batch)).toEqual([]);

    // The input went to the bucket as Converse records, one per line, before the job was created.
    const put = bedrock.received.find((request) => request.method === "PUT")!;
    expect(put.path).toBe(`/batch-bucket/gateway-batches/${batch.id}/input.jsonl`);
    const records = put.body.trim().split("\n").map((text) => JSON.parse(text));
    expect(records.map((record) => record.recordId)).toEqual(["R0000000000", "R0000000001", "R0000000002"]);
    expect(records[0].modelInput).toMatchObject({ system: [{ text: "Be brief." }], messages: [{ role: "user", content: [{ text: "capital of France" }] }], inferenceConfig: { maxTokens: 200 } });
    const created = JSON.parse(bedrock.received.find((request) => request.method === "POST" && request.path === "/model-invocation-job")!.body);
    expect(created).toMatchObject({
      modelId: MODEL,
      roleArn: ROLE,
      modelInvocationType: "Converse",
      inputDataConfig: { s3InputDataConfig: { s3Uri: `s3://batch-bucket/gateway-batches/${batch.id}/input.jsonl`, s3InputFormat: "JSONL" } },
      outputDataConfig: { s3OutputDataConfig: { s3Uri: `s3://batch-bucket/gateway-batches/${batch.id}/output/` } },
    });

    expect((await openai.batches.retrieve(batch.id)).status).toBe("in_progress");
    const reads = await Promise.all([1, 2].map(() => openai.batches.retrieve(batch.id)));
    for (const read of reads) expect(read).toMatchObject({ status: "completed", request_counts: { total: 3, completed: 2, failed: 1 } });
    const done = reads[0]!;
    expect(openaiContractProblems("Batch", done)).toEqual([]);

    const output = (await (await openai.files.content(done.output_file_id!)).text()).trim().split("\n").map((text) => JSON.parse(text));
    const fr = output.find((entry) => entry.custom_id === "fr");
    expect(fr).toMatchObject({ error: null, response: { status_code: 200, body: { object: "chat.completion", choices: [{ message: { role: "assistant", content: "Paris." } }], usage: { prompt_tokens: 1000, completion_tokens: 100 } } } });
    expect(openaiContractProblems("CreateChatCompletionResponse", fr.response.body)).toEqual([]);
    const errors = (await (await openai.files.content(done.error_file_id!)).text()).trim().split("\n").map((text) => JSON.parse(text));
    expect(errors).toEqual([expect.objectContaining({ custom_id: "odd one", response: expect.objectContaining({ status_code: 400 }) })]);

    await openai.batches.retrieve(batch.id);
    await gateway.flushLogs();
    const { rows } = await sql<{ model: string; prompt_tokens: number; cost_usd: number | null; metadata: string; status: number }>`
      select model, prompt_tokens, cost_usd, metadata, status from logs where route = 'createBatch' and path = '/v1/chat/completions' and provider = 'bedrock'`.execute(gateway.gateway.deps.store.db);
    const lines = rows.map((row) => ({ ...row, metadata: JSON.parse(row.metadata) as Record<string, string> })).filter((row) => row.metadata.batch_id === batch.id);
    expect(lines.map((row) => row.metadata.custom_id).sort()).toEqual(["es", "fr", "odd one"]);
    const onDemand = computeCostUsd("bedrock", MODEL, { promptTokens: 1000, completionTokens: 100, totalTokens: 1100, cachedTokens: 0, reasoningTokens: 0 })!;
    expect(onDemand).toBeGreaterThan(0);
    expect(lines.find((row) => row.metadata.custom_id === "fr")).toMatchObject({ model: MODEL, prompt_tokens: 1000, status: 200 });
    expect(lines.find((row) => row.metadata.custom_id === "fr")!.cost_usd).toBeCloseTo(onDemand / 2, 10);
  });

  it("stops a running job: cancelling, then cancelled with every request in the error file", async () => {
    const openai = client();
    const batch = await openai.batches.create({ input_file_id: await upload([line("a", "capital of France"), line("b", "capital of Spain")]), endpoint: "/v1/chat/completions", completion_window: "24h" });
    expect((await openai.batches.cancel(batch.id)).status).toBe("cancelling");
    expect(bedrock.received.some((request) => request.method === "POST" && request.path.endsWith("/stop"))).toBe(true);
    expect((await openai.batches.retrieve(batch.id)).status).toBe("cancelling");
    const stopped = await openai.batches.retrieve(batch.id);
    expect(stopped).toMatchObject({ status: "cancelled", request_counts: { total: 2, completed: 0, failed: 2 } });
    expect(stopped.output_file_id).toBeUndefined();
    // The job wrote no results: each request not run is in the error file, as OpenAI lists them.
    const errors = (await (await openai.files.content(stopped.error_file_id!)).text()).trim().split("\n").map((text) => JSON.parse(text));
    expect(errors.map((entry) => entry.custom_id).sort()).toEqual(["a", "b"]);
    for (const entry of errors) expect(entry).toMatchObject({ response: null, error: { code: "batch_canceled" } });
  });
});

describe("bad input to a batch on Bedrock", () => {
  const create = (fileId: string, extra: Record<string, string> = {}) =>
    call(gateway, "POST", "/v1/batches", { body: { input_file_id: fileId, endpoint: "/v1/chat/completions", completion_window: "24h" }, headers: headers(extra) });

  it("refuses lines of two models, and a line with tools, before writing anything", async () => {
    const puts = bedrock.received.filter((request) => request.method === "PUT").length;
    const twoModels = await create(await upload([line("a", "capital of France"), line("b", "capital of Spain", { model: "amazon.nova-pro-v1:0" })]));
    expect(twoModels.status).toBe(400);
    expect(twoModels.body.error).toMatchObject({ param: "input_file_id", message: expect.stringContaining("one model") });
    const tools = await create(await upload([line("t", "capital of France", { tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }] })]));
    expect(tools.status).toBe(400);
    expect(tools.body.error.message).toContain("Line 1 of the input file: Bedrock batch jobs run no tools");
    expect(bedrock.received.filter((request) => request.method === "PUT").length).toBe(puts);
  });

  it("names the missing bucket or role, and refuses a Bedrock API key, which S3 does not take", async () => {
    const fileId = await upload([line("a", "capital of France")]);
    const noBucket = await create(fileId, { "x-gateway-aws-batch-bucket": "" });
    expect(noBucket.status).toBe(400);
    expect(noBucket.body.error.param).toBe("x-gateway-aws-batch-bucket");
    const noRole = await create(fileId, { "x-gateway-aws-batch-role-arn": "" });
    expect(noRole.status).toBe(400);
    expect(noRole.body.error.param).toBe("x-gateway-aws-batch-role-arn");
    const badRole = await create(fileId, { "x-gateway-aws-batch-role-arn": "not-an-arn" });
    expect(badRole.status).toBe(400);
    const apiKeyOnly = await create(fileId, { "x-gateway-aws-access-key-id": "", "x-gateway-aws-secret-access-key": "", authorization: "Bearer bedrock-api-key-0123456789" });
    expect(apiKeyOnly.status).toBe(400);
    expect(apiKeyOnly.body.error.message).toContain("SigV4");
  });
});
