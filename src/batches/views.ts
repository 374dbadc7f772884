/**
 * The gateway's batches and files as OpenAI's objects, so the OpenAI SDKs read them as theirs.
 * https://platform.openai.com/docs/api-reference/batch/object
 * https://platform.openai.com/docs/api-reference/files/object
 */
import type { GatewayBatch, GatewayFile } from "../store/batches-repository.ts";

/** How long a batch may run, as OpenAI's `completion_window` promises. */
const WINDOW_SECONDS = 24 * 60 * 60;

const seconds = (iso: string | null): number | null => (iso === null ? null : Math.floor(Date.parse(iso) / 1000));

/** OpenAI leaves out a batch's fields that have no value yet (its SDK types them optional, not null). */
export function batchObject(batch: GatewayBatch): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fullBatchObject(batch)).filter(([, value]) => value !== null));
}

function fullBatchObject(batch: GatewayBatch): Record<string, unknown> {
  const created = seconds(batch.createdAt)!;
  const finished = seconds(batch.finishedAt);
  const at = (status: string): number | null => (batch.status === status ? finished : null);
  return {
    id: batch.id,
    object: "batch",
    endpoint: batch.endpoint,
    errors: batch.errors ? { object: "list", data: batch.errors.map((error) => ({ ...error, param: null, line: null })) } : null,
    input_file_id: batch.inputFileId,
    completion_window: batch.completionWindow,
    status: batch.status,
    output_file_id: batch.outputFileId,
    error_file_id: batch.errorFileId,
    created_at: created,
    in_progress_at: created,
    expires_at: created + WINDOW_SECONDS,
    finalizing_at: finished,
    completed_at: at("completed"),
    failed_at: at("failed"),
    expired_at: at("expired"),
    cancelling_at: batch.status === "cancelling" || batch.status === "cancelled" ? seconds(batch.updatedAt) : null,
    cancelled_at: at("cancelled"),
    request_counts: batch.requestCounts,
    metadata: batch.metadata,
  };
}

export function fileObject(file: Omit<GatewayFile, "content">): Record<string, unknown> {
  return {
    id: file.id,
    object: "file",
    bytes: file.bytes,
    created_at: seconds(file.createdAt),
    filename: file.filename,
    purpose: file.purpose,
    status: "processed",
    status_details: null,
  };
}
