/**
 * Bedrock batch inference behind the gateway's unified batches: the lines written to the S3
 * bucket the target names as Converse records (`{recordId, modelInput}`, the model input being
 * the body the Converse transform makes), a `CreateModelInvocationJob` of the Converse type on
 * the control plane (`bedrock.<region>.amazonaws.com`), polled with `GetModelInvocationJob`,
 * stopped with `StopModelInvocationJob`, and the results read back from
 * `<output>/<job id>/input.jsonl.out` (`{recordId, modelInput, modelOutput | error}`).
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_CreateModelInvocationJob.html
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_GetModelInvocationJob.html
 * https://docs.aws.amazon.com/bedrock/latest/userguide/batch-inference-data.html
 * https://docs.aws.amazon.com/bedrock/latest/userguide/batch-inference-results.html
 */
import { GatewayError } from "../../errors.ts";
import type { BatchJobState, BatchLineResult, BatchStorage, BatchTransforms, OpenAiBatchStatus, StorageTarget } from "../batch.ts";
import type { JsonObject } from "../provider.ts";
import { signRequest } from "./sigv4.ts";

/** Where the gateway's objects go in the bucket. */
const PREFIX = "gateway-batches";

/** The regional runtime endpoint, whose region names the control plane's and S3's. */
const RUNTIME = /^https:\/\/bedrock-runtime\.([a-z0-9-]+)\.amazonaws\.com\/?$/;

/** An 11-character record id per line, its position in the input: results are matched back by it. */
const recordId = (index: number): string => `R${String(index).padStart(10, "0")}`;

/** The job's id: the last part of its ARN (the folder Bedrock writes the results under). */
const jobIdOf = (jobArn: string): string => jobArn.slice(jobArn.lastIndexOf("/") + 1);

const storage: BatchStorage = {
  place(batchId, target) {
    const bucket = target.fields.aws_batch_bucket;
    if (!bucket) return new GatewayError("invalid_request", "Bedrock batches need an S3 bucket: send x-gateway-aws-batch-bucket (or store aws_batch_bucket in the virtual key).", { param: "x-gateway-aws-batch-bucket" });
    const roleArn = target.fields.aws_batch_role_arn;
    if (!roleArn) return new GatewayError("invalid_request", "Bedrock batches need the service role Bedrock runs them as: send x-gateway-aws-batch-role-arn (or store aws_batch_role_arn in the virtual key).", { param: "x-gateway-aws-batch-role-arn" });
    const folder = `${PREFIX}/${batchId}`;
    return { bucket, roleArn, inputKey: `${folder}/input.jsonl`, outputKey: `${folder}/output/` };
  },
  input: (lines) => `${lines.map((line, index) => JSON.stringify({ recordId: recordId(index), modelInput: line.body })).join("\n")}\n`,
  async request(call, place, target) {
    const region = target.fields.aws_region;
    const accessKeyId = target.fields.aws_access_key_id;
    const secretAccessKey = target.fields.aws_secret_access_key;
    if (!region || !accessKeyId || !secretAccessKey) {
      return new GatewayError("invalid_request", "Bedrock batches write to S3, which takes SigV4 only: send x-gateway-aws-access-key-id, x-gateway-aws-secret-access-key and x-gateway-aws-region.", { param: "x-gateway-aws-access-key-id" });
    }
    const key = call.object === "input" ? place.inputKey! : `${place.outputKey}${jobIdOf(call.jobId ?? "")}/input.jsonl.out`;
    const url = `${bucketBase(target, place.bucket!, region)}/${key.split("/").map(encodeURIComponent).join("/")}`;
    const headers: Record<string, string> = call.body === undefined ? {} : { "content-type": "application/jsonl" };
    const sessionToken = target.fields.aws_session_token;
    return signRequest(
      { method: call.method, url, headers, body: call.body ?? null },
      { accessKeyId, secretAccessKey, ...(sessionToken && { sessionToken }) },
      { region, service: "s3", escapePath: false },
    );
  },
};

/** The bucket's endpoint: the region's S3 for Bedrock's own endpoint, else the custom host, path-style (an S3-compatible stand-in). */
function bucketBase(target: StorageTarget, bucket: string, region: string): string {
  return RUNTIME.test(target.baseUrl) ? `https://${bucket}.s3.${region}.amazonaws.com` : `${target.baseUrl.replace(/\/$/, "")}/${bucket}`;
}

export const bedrockBatch: BatchTransforms = {
  storage,
  apiBase: (baseUrl) => {
    const region = RUNTIME.exec(baseUrl)?.[1];
    return region ? `https://bedrock.${region}.amazonaws.com` : baseUrl;
  },
  // Converse jobs take no tools (their records with toolConfig fail).
  checkLine: (line) => (line.body.toolConfig === undefined ? null : "Bedrock batch jobs run no tools"),
  create(lines, { batchId, place }) {
    const models = [...new Set(lines.map((line) => line.model))];
    if (models.length > 1) return new GatewayError("invalid_request", `A Bedrock batch job runs one model; the input file names ${models.slice(0, 3).join(", ")}.`, { param: "input_file_id" });
    return {
      method: "POST",
      path: "/model-invocation-job",
      body: {
        jobName: `gateway-${batchId.replaceAll("_", "-")}`.slice(0, 63),
        roleArn: place!.roleArn,
        modelId: models[0],
        modelInvocationType: "Converse",
        inputDataConfig: { s3InputDataConfig: { s3Uri: `s3://${place!.bucket}/${place!.inputKey}`, s3InputFormat: "JSONL" } },
        outputDataConfig: { s3OutputDataConfig: { s3Uri: `s3://${place!.bucket}/${place!.outputKey}` } },
      },
    };
  },
  jobId: (answer) => (typeof answer.jobArn === "string" && answer.jobArn !== "" ? answer.jobArn : null),
  status: (jobArn) => ({ method: "GET", path: `/model-invocation-job/${encodeURIComponent(jobArn)}` }),
  state: jobState,
  cancel: (jobArn) => ({ method: "POST", path: `/model-invocation-job/${encodeURIComponent(jobArn)}/stop` }),
  readResults,
};

const RUNNING: Readonly<Record<string, OpenAiBatchStatus>> = { Submitted: "validating", Validating: "validating", Scheduled: "validating", InProgress: "in_progress", Stopping: "cancelling" };
const ENDED: Readonly<Record<string, OpenAiBatchStatus>> = { Completed: "completed", PartiallyCompleted: "completed", Failed: "failed", Stopped: "cancelled", Expired: "expired" };

function jobState(answer: JsonObject): BatchJobState {
  const status = typeof answer.status === "string" ? answer.status : "";
  const ended = ENDED[status];
  const failure = typeof answer.message === "string" && answer.message !== "" ? answer.message : undefined;
  if (ended) return { status: ended, ended: true, counts: null, ...(failure && { failure }) };
  return { status: RUNNING[status] ?? "in_progress", ended: false, counts: null };
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
    if (typeof parsed !== "object" || parsed === null) continue;
    const record = parsed as { recordId?: unknown; modelOutput?: unknown; error?: { errorCode?: unknown; errorMessage?: unknown } };
    const index = typeof record.recordId === "string" && /^R\d{10}$/.test(record.recordId) ? Number(record.recordId.slice(1)) : -1;
    const customId = lines[index]?.customId;
    if (customId === undefined) continue;
    if (typeof record.modelOutput === "object" && record.modelOutput !== null) {
      results.push({ customId, kind: "succeeded", answer: record.modelOutput as JsonObject });
      continue;
    }
    const status = typeof record.error?.errorCode === "number" ? record.error.errorCode : 500;
    results.push({ customId, kind: "errored", status, code: status < 500 ? "invalid_request_error" : "api_error", message: typeof record.error?.errorMessage === "string" ? record.error.errorMessage : "The request failed." });
  }
  return results;
}
