/**
 * Vertex AI batch prediction behind the gateway's unified batches: the lines written to the
 * Cloud Storage bucket the target names as Gemini request lines (`{request: …}`, the request
 * being the body Gemini's chat transform makes), a `batchPredictionJobs` job on the project and
 * location, polled for its `JOB_STATE_*`, cancelled with `:cancel`, and the predictions read back
 * from the job's output folder (`{request, response | status}` per line, matched to the input by a
 * label the gateway adds to each request).
 * https://cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.batchPredictionJobs
 * https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/batch-prediction-from-cloud-storage
 * https://cloud.google.com/storage/docs/uploading-objects#uploading-an-object (JSON API, media upload)
 */
import { GatewayError } from "../../errors.ts";
import type { BatchJobState, BatchLineResult, BatchStorage, BatchTransforms, OpenAiBatchStatus, StorageTarget } from "../batch.ts";
import type { JsonObject } from "../provider.ts";
import { LOCATION, PROJECT } from "./paths.ts";

/** Where the gateway's objects go in the bucket. */
const PREFIX = "gateway-batches";

/** The label each request carries: its line, for matching predictions (which come in any order) back. */
const LINE_LABEL = "gateway_line";
const lineLabel = (index: number): string => `l${String(index).padStart(10, "0")}`;

/** Vertex AI's own hosts: their storage is Google's; any other (a custom host) serves the storage API itself. */
const VERTEX_HOST = /^https:\/\/([a-z0-9-]+-)?aiplatform\.googleapis\.com(\/|$)/;

function storageBase(target: StorageTarget): string {
  return VERTEX_HOST.test(target.baseUrl) ? "https://storage.googleapis.com" : new URL(target.baseUrl).origin;
}

const storage: BatchStorage = {
  authorizedByProvider: true,
  place(batchId, target) {
    const bucket = target.fields.vertex_batch_bucket;
    if (!bucket) return new GatewayError("invalid_request", "Vertex AI batches need a Cloud Storage bucket: send x-gateway-vertex-batch-bucket (or store vertex_batch_bucket in the virtual key).", { param: "x-gateway-vertex-batch-bucket" });
    const folder = `${PREFIX}/${batchId}`;
    return { bucket, inputObject: `${folder}/input.jsonl`, outputPrefix: `${folder}/output` };
  },
  input: (lines) =>
    `${lines.map((line, index) => JSON.stringify({ request: { ...line.body, labels: { ...(isObject(line.body.labels) ? line.body.labels : {}), [LINE_LABEL]: lineLabel(index) } } })).join("\n")}\n`,
  request(call, place, target) {
    const base = storageBase(target);
    if (call.method === "PUT") {
      const url = `${base}/upload/storage/v1/b/${encodeURIComponent(place.bucket!)}/o?uploadType=media&name=${encodeURIComponent(place.inputObject!)}`;
      return Promise.resolve({ method: "POST", url, headers: { "content-type": "application/jsonl" }, body: call.body ?? "" });
    }
    // The job names its output folder; only one in the batch's own bucket is read.
    // A job that wrote nothing (cancelled early) names no folder: there are no predictions to read.
    if (call.location === undefined) return Promise.resolve(new GatewayError("not_found", "Vertex AI named no output folder for the batch."));
    const folder = /^gs:\/\/([^/]+)\/(.+?)\/?$/.exec(call.location);
    if (!folder || folder[1] !== place.bucket) return Promise.resolve(new GatewayError("upstream_error", "Vertex AI named an output folder outside the batch's bucket."));
    const object = `${folder[2]}/predictions.jsonl`;
    return Promise.resolve({ method: "GET", url: `${base}/storage/v1/b/${encodeURIComponent(place.bucket!)}/o/${encodeURIComponent(object)}?alt=media`, headers: {}, body: null });
  },
};

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

export const vertexBatch: BatchTransforms = {
  storage,
  create(lines, { batchId, place, fields }) {
    const project = fields.vertex_project;
    const location = fields.vertex_location;
    if (!project || !PROJECT.test(project)) return new GatewayError("invalid_request", "Vertex AI needs the Google Cloud project: send x-gateway-vertex-project (or store vertex_project in the virtual key).", { param: "x-gateway-vertex-project" });
    if (!location || !LOCATION.test(location)) return new GatewayError("invalid_request", "Vertex AI needs a location: send x-gateway-vertex-location.", { param: "x-gateway-vertex-location" });
    const models = [...new Set(lines.map((line) => line.model))];
    if (models.length > 1) return new GatewayError("invalid_request", `A Vertex AI batch prediction job runs one model; the input file names ${models.slice(0, 3).join(", ")}.`, { param: "input_file_id" });
    return {
      method: "POST",
      path: `/projects/${project}/locations/${location}/batchPredictionJobs`,
      body: {
        displayName: `gateway-${batchId}`,
        model: `publishers/google/models/${models[0]}`,
        inputConfig: { instancesFormat: "jsonl", gcsSource: { uris: [`gs://${place!.bucket}/${place!.inputObject}`] } },
        outputConfig: { predictionsFormat: "jsonl", gcsDestination: { outputUriPrefix: `gs://${place!.bucket}/${place!.outputPrefix}` } },
      },
    };
  },
  jobId: (answer) => (typeof answer.name === "string" && /^projects\/[^/]+\/locations\/[^/]+\/batchPredictionJobs\/[^/]+$/.test(answer.name) ? answer.name : null),
  status: (name) => ({ method: "GET", path: `/${name}` }),
  state: jobState,
  cancel: (name) => ({ method: "POST", path: `/${name}:cancel` }),
  readResults,
};

const RUNNING: Readonly<Record<string, OpenAiBatchStatus>> = {
  JOB_STATE_QUEUED: "validating",
  JOB_STATE_PENDING: "validating",
  JOB_STATE_RUNNING: "in_progress",
  JOB_STATE_UPDATING: "in_progress",
  JOB_STATE_PAUSED: "in_progress",
  JOB_STATE_CANCELLING: "cancelling",
};
const ENDED: Readonly<Record<string, OpenAiBatchStatus>> = {
  JOB_STATE_SUCCEEDED: "completed",
  JOB_STATE_PARTIALLY_SUCCEEDED: "completed",
  JOB_STATE_FAILED: "failed",
  JOB_STATE_CANCELLED: "cancelled",
  JOB_STATE_EXPIRED: "expired",
};

/** An int64 as the JSON mapping writes it (a string), or a number. */
const int = (value: unknown): number => (typeof value === "number" ? value : typeof value === "string" && /^\d+$/.test(value) ? Number(value) : 0);

function jobState(answer: JsonObject): BatchJobState {
  const state = typeof answer.state === "string" ? answer.state : "";
  const stats = isObject(answer.completionStats) ? answer.completionStats : null;
  const counts = stats ? { completed: int(stats.successfulCount), failed: int(stats.failedCount), total: int(stats.successfulCount) + int(stats.failedCount) + int(stats.incompleteCount) } : null;
  const output = isObject(answer.outputInfo) && typeof answer.outputInfo.gcsOutputDirectory === "string" ? answer.outputInfo.gcsOutputDirectory : undefined;
  const failure = isObject(answer.error) && typeof answer.error.message === "string" ? answer.error.message : undefined;
  const ended = ENDED[state];
  if (ended) return { status: ended, ended: true, counts, ...(output && { resultsUrl: output }), ...(failure && { failure }) };
  return { status: RUNNING[state] ?? "in_progress", ended: false, counts: counts && counts.total > 0 ? counts : null };
}

function readResults(text: string, lines: readonly { customId: string }[]): BatchLineResult[] {
  const results: BatchLineResult[] = [];
  for (const row of text.split("\n")) {
    if (row.trim() === "") continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(row);
    } catch {
      continue;
    }
    if (!isObject(parsed) || !isObject(parsed.request)) continue;
    const labels = isObject(parsed.request.labels) ? parsed.request.labels : {};
    const label = typeof labels[LINE_LABEL] === "string" ? labels[LINE_LABEL] : "";
    const customId = /^l\d{10}$/.test(label) ? lines[Number(label.slice(1))]?.customId : undefined;
    if (customId === undefined) continue;
    if (isObject(parsed.response) && (typeof parsed.status !== "string" || parsed.status === "")) {
      results.push({ customId, kind: "succeeded", answer: parsed.response });
      continue;
    }
    results.push({ customId, kind: "errored", status: 400, code: "invalid_request_error", message: typeof parsed.status === "string" && parsed.status !== "" ? parsed.status : "The request failed." });
  }
  return results;
}
