import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI, { toFile } from "openai";
import { call, openaiClient, startGateway, startUpstream, storedLog, upstreamHeaders, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { openaiContractProblems } from "./support/contract.ts";
import { startRecordingUpstream, type RecordingUpstream } from "./support/recording-upstream.ts";

/** Batches and fine-tuning jobs as documented operations, through their lifecycle. */

let gateway: RunningGateway;
let upstream: LLMock;
let recorder: RecordingUpstream;

beforeAll(async () => {
  upstream = await startUpstream();
  recorder = await startRecordingUpstream((request) => {
    if (request.path.includes("/checkpoints")) {
      return { object: "list", has_more: false, first_id: "ftckpt_1", last_id: "ftckpt_1", data: [{ id: "ftckpt_1", object: "fine_tuning.job.checkpoint", created_at: 1, fine_tuned_model_checkpoint: "ft:gpt-4o-mini:org::ckpt", step_number: 10, metrics: {}, fine_tuning_job_id: "ftjob_1" }] };
    }
    const status = request.path.endsWith("/pause") ? "paused" : "running";
    return { id: "ftjob_1", object: "fine_tuning.job", model: "gpt-4o-mini", status, training_file: "file-1" };
  });
  // Compiling the official schemas blocks for seconds: done before any connection is open, so
  // none is left idle long enough to be reset mid-test.
  for (const schema of ["Batch", "ListFineTuningJobCheckpointsResponse"]) openaiContractProblems(schema, {});
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await recorder?.close();
});

async function inputFile(client: OpenAI, purpose: "batch" | "fine-tune"): Promise<string> {
  const line = JSON.stringify({ custom_id: "1", method: "POST", url: "/v1/chat/completions", body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] } });
  const text = purpose === "batch" ? line : JSON.stringify({ messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }] });
  return (await client.files.create({ file: await toFile(Buffer.from(`${text}\n`), "input.jsonl"), purpose })).id;
}

describe("batches", () => {
  it("creates, retrieves, lists and cancels a batch", async () => {
    const client = openaiClient(gateway, upstream);
    const fileId = await inputFile(client, "batch");
    const { data: batch, response } = await client.batches.create({ input_file_id: fileId, endpoint: "/v1/chat/completions", completion_window: "24h" }).withResponse();
    expect(batch).toMatchObject({ object: "batch", input_file_id: fileId, endpoint: "/v1/chat/completions" });
    expect(openaiContractProblems("Batch", batch)).toEqual([]);
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "createBatch", method: "POST", path: "/v1/batches", provider: "openai", status: 200 });
    expect(JSON.parse(record.requestBody!)).toEqual({ input_file_id: fileId, endpoint: "/v1/chat/completions", completion_window: "24h" });

    expect((await client.batches.retrieve(batch.id)).id).toBe(batch.id);
    const listed = await client.batches.list({ limit: 100 });
    expect(listed.data.map((entry) => entry.id)).toContain(batch.id);
    expect(upstream.getRequests().some((request) => request.path === "/v1/batches?limit=100")).toBe(true);
    const cancelled = await client.batches.cancel(batch.id).withResponse();
    expect(["cancelling", "cancelled"]).toContain(cancelled.data.status);
    expect(await storedLog(gateway, cancelled.response.headers.get("x-gateway-log-id")!)).toMatchObject({ route: "cancelBatch", path: `/v1/batches/${batch.id}/cancel` });
  });

  it("checks the body against the document before any upstream call", async () => {
    const before = upstream.getRequests().length;
    const refused = await call(gateway, "POST", "/v1/batches", { body: { input_file_id: "file-1", endpoint: "/v1/chat/completions" }, headers: upstreamHeaders(gateway, upstream) });
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe("completion_window");
    expect(upstream.getRequests().length).toBe(before);
  });
});

describe("fine-tuning", () => {
  it("creates, retrieves, lists, reads the events of and cancels a job", async () => {
    const client = openaiClient(gateway, upstream);
    const trainingFile = await inputFile(client, "fine-tune");
    const { data: job, response } = await client.fineTuning.jobs.create({ model: "gpt-4o-mini", training_file: trainingFile }).withResponse();
    expect(job).toMatchObject({ object: "fine_tuning.job", model: "gpt-4o-mini", training_file: trainingFile });
    expect(await storedLog(gateway, response.headers.get("x-gateway-log-id")!)).toMatchObject({ route: "createFineTuningJob", provider: "openai", model: "gpt-4o-mini", status: 200 });

    expect((await client.fineTuning.jobs.retrieve(job.id)).id).toBe(job.id);
    const listed = await client.fineTuning.jobs.list({ limit: 10 });
    expect(listed.data.map((entry) => entry.id)).toContain(job.id);
    const events = await client.fineTuning.jobs.listEvents(job.id, { limit: 5 }).withResponse();
    expect(events.data.data.length).toBeGreaterThan(0);
    expect(events.data.data[0]).toMatchObject({ object: "fine_tuning.job.event" });
    expect(await storedLog(gateway, events.response.headers.get("x-gateway-log-id")!)).toMatchObject({ route: "listFineTuningEvents", path: `/v1/fine_tuning/jobs/${job.id}/events` });
    const cancelled = await client.fineTuning.jobs.cancel(job.id);
    expect(cancelled.status).toBe("cancelled");
  });

  it("lists checkpoints, pauses and resumes a job, each to its path with the query as sent", async () => {
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: UPSTREAM_KEY, maxRetries: 0, defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": recorder.url } });
    const { data: checkpoints, response } = await client.fineTuning.jobs.checkpoints.list("ftjob_1", { limit: 3, after: "ftckpt_0" }).withResponse();
    expect(checkpoints.data[0]).toMatchObject({ id: "ftckpt_1", step_number: 10 });
    expect(openaiContractProblems("ListFineTuningJobCheckpointsResponse", { object: "list", has_more: false, first_id: "ftckpt_1", last_id: "ftckpt_1", data: checkpoints.data })).toEqual([]);
    expect(await storedLog(gateway, response.headers.get("x-gateway-log-id")!)).toMatchObject({ route: "listFineTuningJobCheckpoints", provider: "openai" });
    expect((await client.fineTuning.jobs.pause("ftjob_1")).status).toBe("paused");
    expect((await client.fineTuning.jobs.resume("ftjob_1")).status).toBe("running");
    expect(recorder.received.map(({ method, path }) => `${method} ${path}`)).toEqual([
      "GET /v1/fine_tuning/jobs/ftjob_1/checkpoints?limit=3&after=ftckpt_0",
      "POST /v1/fine_tuning/jobs/ftjob_1/pause",
      "POST /v1/fine_tuning/jobs/ftjob_1/resume",
    ]);
  });
});
