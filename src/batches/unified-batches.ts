/**
 * The gateway's own batches over a provider's batch API: created from a file the gateway keeps,
 * polled when the client reads the batch, finished once its results are read (translated back
 * into output and error files the gateway keeps, each result line logged once), cancelled on
 * request. The store's record is the batch; the provider's job is polled only while it runs.
 */
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import { isoNow } from "../lib/ids.ts";
import type { LogEntry } from "../logging/log-entry.ts";
import type { Target } from "../operation/target.ts";
import type { BatchJobState, BatchLineResult, BatchTransforms, TranslatedLine } from "../providers/batch.ts";
import type { BatchesRepository, GatewayBatch } from "../store/batches-repository.ts";
import { newBatchId, resultFileId } from "./ids.ts";
import { BATCH_ENDPOINT, translateInput } from "./input-lines.ts";
import { batchOutput, type BatchCaller } from "./output-lines.ts";
import { callProvider, callStorage, jsonAnswer, type ProviderCallDeps } from "./provider-call.ts";

export interface UnifiedBatchDeps extends ProviderCallDeps {
  batches: BatchesRepository;
  /** Hands a result line's log entry to the log writer. */
  log(entry: LogEntry): void;
  maxLoggedBodyBytes: number;
}

export interface CreateBatchRequest {
  caller: BatchCaller;
  target: Target;
  inputFileId: string;
  endpoint: string;
  completionWindow: string;
  metadata: Record<string, string> | null;
}

const TERMINAL = new Set(["completed", "failed", "expired", "cancelled"]);

/** Whether a batch has nothing left to poll. */
export const isFinished = (batch: GatewayBatch): boolean => TERMINAL.has(batch.status);

function batchApi(target: Target): Result<BatchTransforms, GatewayError> {
  const api = target.provider.batch;
  return api ? ok(api) : fail(new GatewayError("invalid_request", `${target.provider.name} runs no batches of files the gateway keeps.`, { param: "input_file_id" }));
}

/** Translates the input file, creates the provider's job and keeps the batch's record. */
export async function createUnifiedBatch(request: CreateBatchRequest, deps: UnifiedBatchDeps): Promise<Result<GatewayBatch, GatewayError>> {
  const api = batchApi(request.target);
  if (!api.ok) return api;
  if (request.endpoint !== BATCH_ENDPOINT) {
    return fail(new GatewayError("invalid_request", `${request.target.provider.name} batches run ${BATCH_ENDPOINT} only.`, { param: "endpoint" }));
  }
  const file = await deps.batches.getFile(request.caller.workspaceId, request.inputFileId);
  if (!file) return fail(new GatewayError("not_found", `No file ${request.inputFileId}.`, { param: "input_file_id" }));
  if (file.purpose !== "batch") return fail(new GatewayError("invalid_request", `File ${file.id} was uploaded for ${file.purpose}, not batch.`, { param: "input_file_id" }));
  const input = translateInput(file.content, request.target.provider);
  if (!input.ok) return input;
  const id = newBatchId();
  const place = placeOf(id, request.target);
  if (place instanceof GatewayError) return fail(place);
  // Refused before anything is written (lines one job cannot run together).
  const call = api.value.create(input.value.lines, { batchId: id, place, fields: request.target.credentials.fields });
  if (call instanceof GatewayError) return fail(call);
  if (place) {
    const written = await callStorage(request.target, { method: "PUT", object: "input", body: api.value.storage!.input(input.value.lines) }, place, deps);
    if (!written.ok) return written;
  }
  const created = await callProvider(request.target, call, deps, "answer");
  if (!created.ok) return created;
  const answer = jsonAnswer(created.value, request.target);
  if (!answer.ok) return answer;
  const jobId = api.value.jobId(answer.value);
  if (!jobId) return fail(new GatewayError("upstream_error", `${request.target.provider.name} named no job for the batch.`));
  const now = isoNow();
  const batch: GatewayBatch = {
    workspaceId: request.caller.workspaceId,
    id,
    provider: request.target.provider.id,
    virtualKeyId: request.caller.virtualKeyId,
    apiKeyId: request.caller.apiKeyId,
    providerJobId: jobId,
    inputFileId: file.id,
    outputFileId: null,
    errorFileId: null,
    status: "in_progress",
    endpoint: request.endpoint,
    completionWindow: request.completionWindow,
    requestCounts: { total: input.value.lines.length, completed: 0, failed: 0 },
    metadata: request.metadata,
    errors: null,
    storage: place,
    createdAt: now,
    updatedAt: now,
    finishedAt: null,
  };
  await deps.batches.putBatch(batch);
  return ok(batch);
}

/** For a provider whose job reads a bucket: where this batch's objects go; null for one that takes every request inline. */
function placeOf(batchId: string, target: Target): Record<string, string> | null | GatewayError {
  const storage = target.provider.batch?.storage;
  return storage ? storage.place(batchId, { baseUrl: target.baseUrl, apiKey: target.credentials.apiKey, fields: target.credentials.fields }) : null;
}

/** The results' text: from storage, or where the provider's job says. A job stopped before writing any has none. */
async function readResults(batch: GatewayBatch, api: BatchTransforms, state: BatchJobState, target: Target, deps: UnifiedBatchDeps): Promise<Result<string, GatewayError>> {
  let read: Result<string, GatewayError>;
  if (api.storage && batch.storage) read = await callStorage(target, { method: "GET", object: "results", jobId: batch.providerJobId, ...(state.resultsUrl && { location: state.resultsUrl }) }, batch.storage, deps);
  else if (state.resultsUrl) read = await callProvider(target, { method: "GET", path: state.resultsUrl }, deps, "results", api.results?.(batch.providerJobId));
  else if (api.results) read = await callProvider(target, api.results(batch.providerJobId), deps, "results");
  else read = ok("");
  if (!read.ok && (state.status === "cancelled" || state.status === "expired") && read.error.status === 404) return ok("");
  return read;
}

/** A batch the target must serve: the provider that runs it. */
export function checkBatchTarget(batch: GatewayBatch, target: Target): Result<Target, GatewayError> {
  if (target.provider.id === batch.provider) return ok(target);
  return fail(new GatewayError("invalid_request", `Batch ${batch.id} runs on ${batch.provider}: read it with that provider's credentials, not ${target.provider.id}'s.`));
}

/**
 * The batch as it stands now: a running one is polled, and one whose job has ended is finished
 * (results read, translated, kept and logged) before it is answered. Safe to run on several
 * replicas at once: the files are written under fixed ids and each line is logged by the one
 * replica that claims it.
 */
export async function refreshUnifiedBatch(batch: GatewayBatch, target: Target, caller: BatchCaller, deps: UnifiedBatchDeps): Promise<Result<GatewayBatch, GatewayError>> {
  if (isFinished(batch)) return ok(batch);
  const api = batchApi(target);
  if (!api.ok) return api;
  const read = await callProvider(target, api.value.status(batch.providerJobId), deps, "answer");
  if (!read.ok) return read;
  const answer = jsonAnswer(read.value, target);
  if (!answer.ok) return answer;
  const state = api.value.state(answer.value);
  const now = isoNow();
  if (!state.ended) {
    const change = { status: state.status, ...(state.counts && { requestCounts: state.counts }) };
    await deps.batches.updateBatch(batch.workspaceId, batch.id, change, now);
    return ok({ ...batch, ...change, updatedAt: now });
  }
  if (state.status === "failed") {
    const change = { status: "failed", errors: [{ code: "batch_failed", message: state.failure ?? `${target.provider.name} failed the batch.` }], finishedAt: now };
    await deps.batches.updateBatch(batch.workspaceId, batch.id, change, now);
    return ok({ ...batch, ...change, updatedAt: now });
  }
  const results = await readResults(batch, api.value, state, target, deps);
  if (!results.ok) return results;
  const input = await deps.batches.getFile(batch.workspaceId, batch.inputFileId);
  const translated = input ? translateInput(input.content, target.provider) : null;
  if (!translated?.ok) return fail(new GatewayError("not_found", `The input file ${batch.inputFileId} of batch ${batch.id} is gone: its results cannot be translated.`));
  const output = batchOutput(withNotRun(api.value.readResults(results.value, translated.value.lines), translated.value.lines, state.status), {
    batchId: batch.id,
    provider: target.provider,
    clientBodies: translated.value.clientBodies,
    // The lines are the creator's requests, whoever reads the batch.
    caller: { ...caller, apiKeyId: batch.apiKeyId, virtualKeyId: batch.virtualKeyId },
    maxLoggedBodyBytes: deps.maxLoggedBodyBytes,
  });
  const outputFileId = output.output.length > 0 ? resultFileId(batch.id, "output") : null;
  const errorFileId = output.errors.length > 0 ? resultFileId(batch.id, "error") : null;
  if (outputFileId) await putResultFile(deps, batch, outputFileId, "output", output.output);
  if (errorFileId) await putResultFile(deps, batch, errorFileId, "error", output.errors);
  const claimed = await deps.batches.claimLines(batch.id, output.entries.map(({ customId, entry }) => ({ customId, logId: entry.id })), now);
  for (const { customId, entry } of output.entries) if (claimed.has(customId)) deps.log(entry);
  const counts = { total: batch.requestCounts.total, completed: output.succeeded, failed: batch.requestCounts.total - output.succeeded };
  const change = { status: state.status, requestCounts: counts, outputFileId, errorFileId, finishedAt: now };
  await deps.batches.updateBatch(batch.workspaceId, batch.id, change, now);
  return ok({ ...batch, ...change, updatedAt: now });
}

/**
 * A cancelled or expired job's results, with each request it has no result for (a job stopped
 * before writing any has none) as not run: the error file lists every request, as OpenAI's does.
 */
function withNotRun(results: BatchLineResult[], lines: readonly TranslatedLine[], status: string): BatchLineResult[] {
  if (status !== "cancelled" && status !== "expired") return results;
  const answered = new Set(results.map((result) => result.customId));
  const kind = status === "cancelled" ? "canceled" : "expired";
  const message = status === "cancelled" ? "The batch was cancelled before this request ran." : "The batch expired before this request ran.";
  const notRun = lines.filter((line) => !answered.has(line.customId)).map((line): BatchLineResult => ({ customId: line.customId, kind, status: 408, code: `batch_${kind}`, message }));
  return [...results, ...notRun];
}

async function putResultFile(deps: UnifiedBatchDeps, batch: GatewayBatch, id: string, kind: "output" | "error", lines: string[]): Promise<void> {
  const content = `${lines.join("\n")}\n`;
  await deps.batches.putFile({
    workspaceId: batch.workspaceId,
    id,
    purpose: "batch_output",
    filename: `${batch.id}_${kind}.jsonl`,
    bytes: Buffer.byteLength(content, "utf8"),
    content,
    createdAt: isoNow(),
  });
}

/** Asks the provider to cancel a running batch; a finished one is a 400, as OpenAI answers. */
export async function cancelUnifiedBatch(batch: GatewayBatch, target: Target, deps: UnifiedBatchDeps): Promise<Result<GatewayBatch, GatewayError>> {
  if (isFinished(batch)) return fail(new GatewayError("invalid_request", `Cannot cancel a batch with status ${batch.status}.`));
  const api = batchApi(target);
  if (!api.ok) return api;
  const cancelled = await callProvider(target, api.value.cancel(batch.providerJobId), deps, "answer");
  if (!cancelled.ok) return cancelled;
  const now = isoNow();
  await deps.batches.updateBatch(batch.workspaceId, batch.id, { status: "cancelling" }, now);
  return ok({ ...batch, status: "cancelling", updatedAt: now });
}
