/**
 * Anthropic's Message Batches behind the gateway's unified batches: every request inline
 * (`requests: [{custom_id, params}]`, params being the Messages body the chat transform makes),
 * polled for `processing_status`, results read as JSONL where `results_url` says.
 * https://docs.anthropic.com/en/api/creating-message-batches
 * https://docs.anthropic.com/en/api/retrieving-message-batches
 * https://docs.anthropic.com/en/api/retrieving-message-batch-results
 */
import type { BatchJobState, BatchLineResult, BatchTransforms, OpenAiBatchStatus } from "../batch.ts";
import type { JsonObject } from "../provider.ts";

/** Anthropic's rule for `custom_id`. */
const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;

export const anthropicBatch: BatchTransforms = {
  checkLine: (line) => (CUSTOM_ID.test(line.customId) ? null : "Anthropic batches take a custom_id of 1 to 64 letters, digits, _ or -"),
  create: (lines) => ({
    method: "POST",
    path: "/messages/batches",
    body: { requests: lines.map((line) => ({ custom_id: line.customId, params: withoutStream(line.body) })) },
  }),
  jobId: (answer) => (typeof answer.id === "string" && answer.id !== "" ? answer.id : null),
  status: (jobId) => ({ method: "GET", path: `/messages/batches/${encodeURIComponent(jobId)}` }),
  state: batchState,
  cancel: (jobId) => ({ method: "POST", path: `/messages/batches/${encodeURIComponent(jobId)}/cancel` }),
  results: (jobId) => ({ method: "GET", path: `/messages/batches/${encodeURIComponent(jobId)}/results` }),
  readResults: (text) => readResults(text),
};

/** A batch request is never streamed. */
function withoutStream(body: JsonObject): JsonObject {
  if (!("stream" in body)) return body;
  const { stream: _stream, ...rest } = body;
  return rest;
}

function count(counts: JsonObject, name: string): number {
  const value = counts[name];
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

function batchState(answer: JsonObject): BatchJobState {
  const raw = answer.request_counts;
  const counts = typeof raw === "object" && raw !== null ? (raw as JsonObject) : {};
  const succeeded = count(counts, "succeeded");
  const failed = count(counts, "errored") + count(counts, "canceled") + count(counts, "expired");
  const total = succeeded + failed + count(counts, "processing");
  const ended = answer.processing_status === "ended";
  const resultsUrl = typeof answer.results_url === "string" && answer.results_url !== "" ? answer.results_url : undefined;
  return { status: statusOf(answer, { succeeded, total, expired: count(counts, "expired") }), ended, counts: { total, completed: succeeded, failed }, ...(resultsUrl && { resultsUrl }) };
}

function statusOf(answer: JsonObject, counts: { succeeded: number; total: number; expired: number }): OpenAiBatchStatus {
  const cancelled = typeof answer.cancel_initiated_at === "string" && answer.cancel_initiated_at !== "";
  switch (answer.processing_status) {
    case "canceling":
      return "cancelling";
    case "ended":
      if (cancelled) return "cancelled";
      // Every request expired: the batch ran past its window.
      return counts.total > 0 && counts.expired === counts.total ? "expired" : "completed";
    default:
      return "in_progress";
  }
}

/** Each line `{custom_id, result: {type, message | error}}`. */
function readResults(text: string): BatchLineResult[] {
  const results: BatchLineResult[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof parsed !== "object" || parsed === null) continue;
    const { custom_id: customId, result } = parsed as { custom_id?: unknown; result?: { type?: unknown; message?: unknown; error?: unknown } };
    if (typeof customId !== "string" || typeof result !== "object" || result === null) continue;
    if (result.type === "succeeded" && typeof result.message === "object" && result.message !== null) {
      results.push({ customId, kind: "succeeded", answer: result.message as JsonObject });
    } else if (result.type === "errored") {
      // `error` is an error response: `{type: "error", error: {type, message}}`.
      const outer = (typeof result.error === "object" && result.error !== null ? result.error : {}) as { error?: { type?: unknown; message?: unknown } };
      const inner = outer.error ?? {};
      const code = typeof inner.type === "string" ? inner.type : "api_error";
      results.push({ customId, kind: "errored", status: code === "invalid_request_error" ? 400 : 500, code, message: typeof inner.message === "string" ? inner.message : "The request failed." });
    } else if (result.type === "canceled" || result.type === "expired") {
      results.push({ customId, kind: result.type, status: 408, code: `batch_${result.type}`, message: result.type === "canceled" ? "The batch was cancelled before this request ran." : "The batch expired before this request ran." });
    }
  }
  return results;
}
