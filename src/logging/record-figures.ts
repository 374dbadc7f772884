import type { LogRecord } from "../records/log-record.ts";

/**
 * What telemetry needs of a built record that its entry does not carry: the answer's tokens,
 * its cost and the model that served it. Built where the record is (the log worker under Bun),
 * handed back with the batch's acknowledgement, so the request thread never reads an answer twice.
 */
export interface RecordFigures {
  inputTokens: number;
  outputTokens: number;
  /** Null when no price is known. */
  costUsd: number | null;
  /** The model the answer names; null when it names none. */
  responseModel: string | null;
}

export function figuresOf(record: Pick<LogRecord, "promptTokens" | "completionTokens" | "costUsd">, responseModel: string | null): RecordFigures {
  return { inputTokens: record.promptTokens, outputTokens: record.completionTokens, costUsd: record.costUsd, responseModel };
}

/** Figures as a flat tuple, for the worker's reply (structured clone costs per object). */
export function packFigures(figures: RecordFigures): [number, number, number | null, string | null] {
  return [figures.inputTokens, figures.outputTokens, figures.costUsd, figures.responseModel];
}

export function unpackFigures(packed: readonly unknown[]): RecordFigures {
  const [inputTokens, outputTokens, costUsd, responseModel] = packed;
  return {
    inputTokens: typeof inputTokens === "number" ? inputTokens : 0,
    outputTokens: typeof outputTokens === "number" ? outputTokens : 0,
    costUsd: typeof costUsd === "number" ? costUsd : null,
    responseModel: typeof responseModel === "string" ? responseModel : null,
  };
}
