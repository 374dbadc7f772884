import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI, { toFile } from "openai";
import { sql } from "kysely";
import { call, startGateway, startUpstream, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { postgresTestUrl, type TestDatabase } from "./support/databases.ts";
import { openaiContractProblems } from "./support/contract.ts";
import { startAnthropicBatches, type AnthropicBatches } from "./support/anthropic-batches.ts";
import { computeCostUsd } from "../src/operation/cost.ts";

/** `POST /v1/batches` over a file the gateway keeps, run on Anthropic's Message Batches. */

const MODEL = "claude-sonnet-4-5";
let gateway: RunningGateway;
let upstream: LLMock;
let anthropic: AnthropicBatches;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("capital of France", { content: "Paris.", usage: { input_tokens: 1000, output_tokens: 200 } });
  upstream.onMessage("capital of Spain", { content: "Madrid.", usage: { input_tokens: 2000, output_tokens: 400 } });
  anthropic = await startAnthropicBatches(`${upstream.url}/v1/messages`);
  gateway = await startGateway();
  openaiContractProblems("Batch", {});
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await anthropic?.close();
});

function claude(on: RunningGateway, headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({
    baseURL: `${on.url}/v1`,
    apiKey: UPSTREAM_KEY,
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": on.adminKey, "x-gateway-provider": "anthropic", "x-gateway-custom-host": anthropic.url, ...headers },
  });
}

const line = (customId: string, content: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ custom_id: customId, method: "POST", url: "/v1/chat/completions", body: { model: MODEL, max_tokens: 300, messages: [{ role: "system", content: "Answer in one word." }, { role: "user", content }], ...extra } });

async function upload(client: OpenAI, lines: string[]): Promise<string> {
  const file = await client.files.create({ file: await toFile(Buffer.from(`${lines.join("\n")}\n`), "input.jsonl"), purpose: "batch" });
  return file.id;
}

async function batchLogs(on: RunningGateway, batchId: string) {
  await on.flushLogs();
  const { rows } = await sql<{ id: string; status: number; model: string; prompt_tokens: number; completion_tokens: number; cost_usd: number | null; metadata: string }>`
    select id, status, model, prompt_tokens, completion_tokens, cost_usd, metadata from logs where route = 'createBatch' and path = '/v1/chat/completions'`.execute(on.gateway.deps.store.db);
  return rows
    .map((row) => ({ ...row, metadata: (typeof row.metadata === "string" ? JSON.parse(row.metadata) : row.metadata) as Record<string, string> }))
    .filter((row) => row.metadata.batch_id === batchId);
}

describe("a batch on Anthropic's Message Batches, through the official openai client", () => {
  it("translates the input, polls the job, serves the translated output and logs each line once at the batch rate", async () => {
    const client = claude(gateway);
    const fileId = await upload(client, [line("fr", "capital of France"), line("es", "capital of Spain", { temperature: 0.2 }), line("bad-1", "capital of Italy")]);
    expect(fileId.startsWith("file-gw")).toBe(true);
    expect(await client.files.retrieve(fileId)).toMatchObject({ id: fileId, object: "file", purpose: "batch", filename: "input.jsonl" });

    const batch = await client.batches.create({ input_file_id: fileId, endpoint: "/v1/chat/completions", completion_window: "24h", metadata: { run: "nightly" } });
    expect(batch).toMatchObject({ object: "batch", status: "in_progress", input_file_id: fileId, request_counts: { total: 3, completed: 0, failed: 0 }, metadata: { run: "nightly" } });
    expect(batch.id.startsWith("batch_gw")).toBe(true);
    expect(openaiContractProblems("Batch", batch)).toEqual([]);

    // Each line went to Anthropic as the chat translation makes it: the system prompt apart, no stream.
    const created = anthropic.received.find((request) => request.method === "POST" && request.path === "/v1/messages/batches")!;
    expect(created.headers["x-api-key"]).toBe(UPSTREAM_KEY);
    const requests = (created.body as { requests: { custom_id: string; params: Record<string, unknown> }[] }).requests;
    expect(requests.map((request) => request.custom_id)).toEqual(["fr", "es", "bad-1"]);
    expect(requests[0]!.params).toMatchObject({ model: MODEL, max_tokens: 300, system: [{ type: "text", text: "Answer in one word." }], messages: [{ role: "user", content: [{ type: "text", text: "capital of France" }] }] });
    expect(requests[1]!.params).toMatchObject({ temperature: 0.2 });
    expect(requests[0]!.params).not.toHaveProperty("stream");

    const running = await client.batches.retrieve(batch.id);
    expect(running.status).toBe("in_progress");
    expect(running.output_file_id).toBeUndefined();
    // Read by three callers at once as the job ends: each line is still logged once.
    const reads = await Promise.all([1, 2, 3].map(() => client.batches.retrieve(batch.id)));
    for (const read of reads) expect(read).toMatchObject({ status: "completed", request_counts: { total: 3, completed: 2, failed: 1 } });
    const done = reads[0]!;
    expect(openaiContractProblems("Batch", done)).toEqual([]);
    expect(done.output_file_id).toMatch(/^file-gw/);
    expect(done.error_file_id).toMatch(/^file-gw/);

    const output = (await (await client.files.content(done.output_file_id!)).text()).trim().split("\n").map((text) => JSON.parse(text));
    expect(output.map((entry) => entry.custom_id).sort()).toEqual(["es", "fr"]);
    const fr = output.find((entry) => entry.custom_id === "fr");
    expect(fr).toMatchObject({ id: expect.stringMatching(/^batch_req_/), error: null, response: { status_code: 200, body: { object: "chat.completion", model: MODEL, choices: [{ message: { role: "assistant", content: "Paris." }, finish_reason: "stop" }], usage: { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 } } } });
    expect(openaiContractProblems("CreateChatCompletionResponse", fr.response.body)).toEqual([]);
    const errors = (await (await client.files.content(done.error_file_id!)).text()).trim().split("\n").map((text) => JSON.parse(text));
    expect(errors).toEqual([expect.objectContaining({ custom_id: "bad-1", response: expect.objectContaining({ status_code: 400, body: { error: expect.objectContaining({ code: "invalid_request_error", message: "max_tokens: too large for this model" }) } }) })]);

    await client.batches.retrieve(batch.id);
    const logs = await batchLogs(gateway, batch.id);
    expect(logs).toHaveLength(3);
    const franceLog = logs.find((log) => log.metadata.custom_id === "fr")!;
    expect(franceLog).toMatchObject({ status: 200, model: MODEL, prompt_tokens: 1000, completion_tokens: 200 });
    const onDemand = computeCostUsd("anthropic", MODEL, { promptTokens: 1000, completionTokens: 200, totalTokens: 1200, cachedTokens: 0, reasoningTokens: 0 })!;
    expect(onDemand).toBeGreaterThan(0);
    expect(franceLog.cost_usd).toBeCloseTo(onDemand / 2, 10);
    expect(logs.find((log) => log.metadata.custom_id === "bad-1")).toMatchObject({ status: 400, cost_usd: null });

    const listed = await client.batches.list({ limit: 10 });
    expect(listed.data.map((entry) => entry.id)).toContain(batch.id);
    // A finished batch is answered from the gateway's record, without the provider.
    const before = anthropic.received.length;
    expect((await client.batches.retrieve(batch.id)).status).toBe("completed");
    expect(anthropic.received.length).toBe(before);
  });

  it("cancels a running batch: cancelling, then cancelled with the cancelled lines in the error file", async () => {
    const client = claude(gateway);
    const batch = await client.batches.create({ input_file_id: await upload(client, [line("one", "capital of France")]), endpoint: "/v1/chat/completions", completion_window: "24h" });
    expect((await client.batches.cancel(batch.id)).status).toBe("cancelling");
    expect(await client.batches.retrieve(batch.id)).toMatchObject({ status: "cancelling" });
    const cancelled = await client.batches.retrieve(batch.id);
    expect(cancelled).toMatchObject({ status: "cancelled", request_counts: { total: 1, completed: 0, failed: 1 } });
    expect(cancelled.output_file_id).toBeUndefined();
    const errors = (await (await client.files.content(cancelled.error_file_id!)).text()).trim().split("\n").map((text) => JSON.parse(text));
    expect(errors).toEqual([expect.objectContaining({ custom_id: "one", response: null, error: expect.objectContaining({ code: "batch_canceled" }) })]);
    const refused = await call(gateway, "POST", `/v1/batches/${batch.id}/cancel`, { headers: claudeHeaders(gateway) });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain("Cannot cancel a batch with status cancelled");
  });
});

function claudeHeaders(on: RunningGateway): Record<string, string> {
  return { "x-gateway-api-key": on.adminKey, "x-gateway-provider": "anthropic", "x-gateway-custom-host": anthropic.url, authorization: `Bearer ${UPSTREAM_KEY}` };
}

describe("bad input to a batch on Anthropic", () => {
  async function refusedCreate(lines: string[]) {
    const fileId = await upload(claude(gateway), lines);
    return call(gateway, "POST", "/v1/batches", { body: { input_file_id: fileId, endpoint: "/v1/chat/completions", completion_window: "24h" }, headers: claudeHeaders(gateway) });
  }

  it("refuses a malformed line, naming it, before any call to Anthropic", async () => {
    const before = anthropic.received.length;
    const refused = await refusedCreate([line("a", "capital of France"), "{not json"]);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ type: "invalid_request_error", param: "input_file_id", message: expect.stringContaining("Line 2 of the input file") });
    expect(anthropic.received.length).toBe(before);
  });

  it("refuses a line for an operation Anthropic's batch cannot run", async () => {
    const embeddings = JSON.stringify({ custom_id: "e", method: "POST", url: "/v1/embeddings", body: { model: MODEL, input: "hi" } });
    const refused = await refusedCreate([embeddings]);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain("/v1/chat/completions only");
  });

  it("refuses a custom_id Anthropic does not take, and a custom_id used twice", async () => {
    expect((await refusedCreate([line("has space", "capital of France")])).body.error.message).toContain("custom_id");
    expect((await refusedCreate([line("x", "capital of France"), line("x", "capital of Spain")])).body.error.message).toContain("used twice");
  });

  it("answers 404 for an unknown batch or file, and for another workspace's batch", async () => {
    const unknown = await call(gateway, "GET", "/v1/batches/batch_gw0000", { headers: claudeHeaders(gateway) });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ type: "not_found_error", param: "batch_id" });
    expect((await call(gateway, "GET", "/v1/files/file-gw0000/content", { headers: claudeHeaders(gateway) })).status).toBe(404);
    const missingFile = await call(gateway, "POST", "/v1/batches", { body: { input_file_id: "file-gw0000", endpoint: "/v1/chat/completions", completion_window: "24h" }, headers: claudeHeaders(gateway) });
    expect(missingFile.status).toBe(404);

    const client = claude(gateway);
    const fileId = await upload(client, [line("w", "capital of France")]);
    const batch = await client.batches.create({ input_file_id: fileId, endpoint: "/v1/chat/completions", completion_window: "24h" });
    const foreign = await call(gateway, "POST", "/v1/api-keys", { body: { name: "other workspace", role: "admin", workspace_id: "7b0e7f43-55c5-4bde-9a52-4c1f1f2d9a10" } });
    expect(foreign.status).toBe(201);
    const stranger = claude(gateway, { "x-gateway-api-key": foreign.body.key as string });
    await expect(stranger.batches.retrieve(batch.id)).rejects.toMatchObject({ status: 404 });
    await expect(stranger.batches.cancel(batch.id)).rejects.toMatchObject({ status: 404 });
    await expect(stranger.files.content(fileId)).rejects.toMatchObject({ status: 404 });
    const borrowed = await call(gateway, "POST", "/v1/batches", { body: { input_file_id: fileId, endpoint: "/v1/chat/completions", completion_window: "24h" }, headers: { ...claudeHeaders(gateway), "x-gateway-api-key": foreign.body.key as string } });
    expect(borrowed.status).toBe(404);
    // The owner still reads it.
    expect((await client.batches.retrieve(batch.id)).id).toBe(batch.id);
  });

  it("refuses to delete the input file of a running batch, which then finishes; once finished the file may go", async () => {
    const client = claude(gateway);
    const fileId = await upload(client, [line("kept", "capital of France")]);
    const batch = await client.batches.create({ input_file_id: fileId, endpoint: "/v1/chat/completions", completion_window: "24h" });
    const refused = await call(gateway, "DELETE", `/v1/files/${fileId}`, { headers: claudeHeaders(gateway) });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ type: "invalid_request_error", param: "file_id" });
    expect(refused.body.error.message).toContain(batch.id);
    let done = await client.batches.retrieve(batch.id);
    while (done.status === "in_progress") done = await client.batches.retrieve(batch.id);
    expect(done).toMatchObject({ status: "completed", request_counts: { total: 1, completed: 1 } });
    expect(await client.files.delete(fileId)).toMatchObject({ id: fileId, deleted: true });
    // The finished batch is answered from its record.
    expect((await client.batches.retrieve(batch.id)).status).toBe("completed");
  });

  it("refuses a file for another purpose and an endpoint other than chat completions", async () => {
    const client = claude(gateway);
    await expect(client.files.create({ file: await toFile(Buffer.from("{}\n"), "t.jsonl"), purpose: "fine-tune" })).rejects.toMatchObject({ status: 400 });
    await expect(client.files.create({ file: await toFile(Buffer.from([0xff, 0xfe, 0x00, 0x7b]), "t.jsonl"), purpose: "batch" })).rejects.toMatchObject({ status: 400 });
    const form = '--x\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--x--\r\n';
    const noFile = await call(gateway, "POST", "/v1/files", { rawBody: form, headers: { ...claudeHeaders(gateway), "content-type": "multipart/form-data; boundary=x" } });
    const broken = await call(gateway, "POST", "/v1/files", { rawBody: "--x\r\nnot a part", headers: { ...claudeHeaders(gateway), "content-type": "multipart/form-data; boundary=x" } });
    expect(broken.status).toBe(400);
    expect(noFile.status).toBe(400);
    expect(noFile.body.error).toMatchObject({ type: "invalid_request_error" });
    const fileId = await upload(client, [line("a", "capital of France")]);
    const refused = await call(gateway, "POST", "/v1/batches", { body: { input_file_id: fileId, endpoint: "/v1/embeddings", completion_window: "24h" }, headers: claudeHeaders(gateway) });
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe("endpoint");
  });
});

describe("two replicas on one PostgreSQL store", () => {
  let database: TestDatabase;
  let first: RunningGateway;
  let second: RunningGateway;

  beforeAll(async () => {
    database = await postgresTestUrl();
    first = await startGateway({ GATEWAY_DATABASE_URL: database.url });
    second = await startGateway({ GATEWAY_DATABASE_URL: database.url, GATEWAY_ADMIN_KEY: first.adminKey });
  });

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await database?.cleanup();
  });

  it("polled by both as the job ends, each result line is logged once", async () => {
    const client = claude(first);
    const fileId = await upload(client, [line("fr", "capital of France"), line("es", "capital of Spain")]);
    const batch = await client.batches.create({ input_file_id: fileId, endpoint: "/v1/chat/completions", completion_window: "24h" });
    await client.batches.retrieve(batch.id);
    const [one, two] = await Promise.all([client.batches.retrieve(batch.id), claude(second).batches.retrieve(batch.id)]);
    expect(one.status).toBe("completed");
    expect(two.status).toBe("completed");
    expect(two.output_file_id).toBe(one.output_file_id);
    await second.flushLogs();
    const logs = await batchLogs(first, batch.id);
    expect(logs.map((log) => log.metadata.custom_id).sort()).toEqual(["es", "fr"]);
  });
});
