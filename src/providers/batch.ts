/**
 * What a provider's own batch API is to the gateway's unified batches (`batches/`): pure
 * functions that say which requests to make and read their answers. The gateway does the I/O,
 * translates each line with the provider's chat transforms, and keeps the batch's record.
 */
import type { GatewayError } from "../errors.ts";
import type { UpstreamRequest } from "../net/upstream-call.ts";

/** A JSON object body (as `provider.ts` names it; restated so neither file imports the other). */
type JsonObject = Record<string, unknown>;

/** What a storage request is signed with: the target's base URL and its credentials' fields and key. */
export interface StorageTarget {
  baseUrl: string;
  apiKey: string | null;
  fields: Readonly<Record<string, string>>;
}

/**
 * The bucket a provider's batch job reads its input from and writes its results to (Bedrock's
 * S3, Vertex AI's Cloud Storage), named by the target's credential fields: the gateway writes
 * the translated lines there and reads the results back.
 */
export interface BatchStorage {
  /** Where this batch's objects go (bucket, keys), from the target's fields; or a 400 naming the missing field. */
  place(batchId: string, target: StorageTarget): Record<string, string> | GatewayError;
  /** The input object's text: one provider record per line. */
  input(lines: readonly TranslatedLine[]): string;
  /**
   * The request that writes (`PUT`) the input or reads (`GET`) the results of the place: signed
   * here, or, when `authorizedByProvider`, authorised afterwards as the provider's own calls are.
   * `location` is where the job says it wrote its results (`BatchJobState.resultsUrl`), when it says.
   */
  request(
    call: { method: "PUT" | "GET"; object: "input" | "results"; body?: string; jobId?: string; location?: string },
    place: Readonly<Record<string, string>>,
    target: StorageTarget,
  ): Promise<UpstreamRequest | GatewayError>;
  /** The storage takes the provider's own credentials (Vertex AI's token for Cloud Storage). */
  authorizedByProvider?: boolean;
}

/** OpenAI's batch statuses: what the client sees whichever provider runs the batch. */
export type OpenAiBatchStatus = "validating" | "in_progress" | "finalizing" | "completed" | "failed" | "expired" | "cancelling" | "cancelled";

/** One input line, translated: its chat body in the provider's format, and the model it names. */
export interface TranslatedLine {
  customId: string;
  model: string;
  body: JsonObject;
  /** The provider's path for the chat call, where its transform gives one (a Gemini model's path). */
  path?: string;
}

/** A request to the provider's API: a path under the target's base URL, or an absolute URL checked by the gateway. */
export interface BatchCall {
  method: "GET" | "POST";
  path: string;
  body?: JsonObject;
}

/** Where the provider's job stands, in OpenAI's terms. */
export interface BatchJobState {
  /** The status while the job runs; at its end, the status once its results are read. */
  status: OpenAiBatchStatus;
  /** Whether the job has ended and its results can be read. */
  ended: boolean;
  counts: { total: number; completed: number; failed: number } | null;
  /** Where the results are, when the provider says so in the job (Anthropic's `results_url`, Vertex AI's output folder). */
  resultsUrl?: string;
  /** Why the job failed, in the provider's words. */
  failure?: string;
}

/** One result line as the provider gave it. */
export type BatchLineResult =
  | { customId: string; kind: "succeeded"; answer: JsonObject }
  | { customId: string; kind: "errored" | "canceled" | "expired"; status: number; code: string; message: string };

export interface BatchTransforms {
  /**
   * Refuses a line the provider's batch cannot take (a `custom_id` it does not allow), naming why;
   * null when it can.
   */
  checkLine?(line: TranslatedLine): string | null;
  /** Present for a provider whose job reads and writes a bucket; absent: every request goes inline. */
  storage?: BatchStorage;
  /**
   * The base URL of the provider's batch API, from the target's (Bedrock's control plane beside
   * its runtime); absent: the target's own.
   */
  apiBase?(baseUrl: string): string;
  /**
   * The request that creates the job from every line (inline, or naming the storage `place`
   * the input was written to), or a 400 for lines one job cannot run together (two models).
   */
  create(lines: readonly TranslatedLine[], context: { batchId: string; place: Readonly<Record<string, string>> | null; fields: Readonly<Record<string, string>> }): BatchCall | GatewayError;
  /** The job's id in the creation's answer; null when the answer has none. */
  jobId(answer: JsonObject): string | null;
  /** The request that reads the job. */
  status(jobId: string): BatchCall;
  /** The job's state, from what `status` answered. */
  state(answer: JsonObject): BatchJobState;
  /** The request that cancels the job. */
  cancel(jobId: string): BatchCall;
  /** The request that reads the results, when the state names no URL of its own; absent: they are in storage. */
  results?(jobId: string): BatchCall;
  /** The results' lines, `lines` being the input's in order; a line that does not parse is skipped. */
  readResults(text: string, lines: readonly TranslatedLine[]): BatchLineResult[];
}
