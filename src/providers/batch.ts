/**
 * What a provider's own batch API is to the gateway's unified batches (`batches/`): pure
 * functions that say which requests to make and read their answers. The gateway does the I/O,
 * translates each line with the provider's chat transforms, and keeps the batch's record.
 */
/** A JSON object body (as `provider.ts` names it; restated so neither file imports the other). */
type JsonObject = Record<string, unknown>;

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
  /** Where the results are, when the provider says so in the job (Anthropic's `results_url`). */
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
  /** The request that creates the job from every line (Anthropic: inline). */
  create(lines: readonly TranslatedLine[]): BatchCall;
  /** The job's id in the creation's answer; null when the answer has none. */
  jobId(answer: JsonObject): string | null;
  /** The request that reads the job. */
  status(jobId: string): BatchCall;
  /** The job's state, from what `status` answered. */
  state(answer: JsonObject): BatchJobState;
  /** The request that cancels the job. */
  cancel(jobId: string): BatchCall;
  /** The request that reads the results, when the state names no URL of its own. */
  results(jobId: string): BatchCall;
  /** The results' lines; a line that does not parse is skipped. */
  readResults(text: string): BatchLineResult[];
}
