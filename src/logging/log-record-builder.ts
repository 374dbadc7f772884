import type { Usage } from "../operation/usage.ts";
import { computeCostUsd } from "../pricing/cost.ts";
import { answerReader, readAnswer } from "./answer-read.ts";
import type { LogEntry } from "./log-entry.ts";
import { LOG_ENTRY_FIELD_NAMES } from "../records/log-fields.ts";
import type { LogRecord } from "../records/log-record.ts";

const ZERO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, cachedTokens: 0, reasoningTokens: 0 };

/** The stored record of an entry: the answer read in its format, tokens counted, cost priced. Never throws. */
export function toLogRecord(entry: LogEntry): LogRecord {
  return buildLogRecord(entry).record;
}

/** The record, and the model the answer names (the record keeps the model asked for). Never throws. */
export function buildLogRecord(entry: LogEntry): { record: LogRecord; servedModel: string | null } {
  const reader = answerReader(entry.format);
  const { body, usage, servedModel, totalBytes, truncated } = readAnswer(entry.response, reader);
  const costModel = servedModel ?? entry.model;
  const succeeded = entry.errorMessage === null && entry.status < 400;
  const costUsd = typeof entry.fixedCostUsd === "number"
    ? entry.fixedCostUsd
    : reader.cost
    ? reader.cost({ ...entry, model: costModel, answerBody: body, succeeded })
    : entry.provider && costModel && usage
      ? computeCostUsd(entry.provider, costModel, usage)
      : null;
  const counted = usage ?? ZERO_USAGE;
  // A hit cost nothing upstream: what it would have cost is the saving.
  const hit = entry.cacheStatus === "HIT" || entry.cacheStatus === "SEMANTIC_HIT";
  const record: Omit<LogRecord, (typeof LOG_ENTRY_FIELD_NAMES)[number]> = {
    success: succeeded,
    promptTokens: counted.promptTokens,
    completionTokens: counted.completionTokens,
    totalTokens: counted.totalTokens,
    cachedTokens: counted.cachedTokens,
    reasoningTokens: counted.reasoningTokens,
    webSearches: counted.webSearches ?? 0,
    costUsd: hit ? 0 : costUsd,
    costSavedUsd: hit ? costUsd : null,
    costNote: costUsd === null && !hit ? costNote(entry, costModel, usage !== null, succeeded, reader.cost !== undefined) : null,
    responseBody: body,
    responseBodyTruncated: truncated,
    responseBodyBytes: totalBytes,
    guardrailResults: entry.guardrailResults ? JSON.stringify(entry.guardrailResults) : null,
  };
  const copied: Record<string, unknown> = record;
  for (const name of LOG_ENTRY_FIELD_NAMES) copied[name] = entry[name];
  return { record: copied as unknown as LogRecord, servedModel };
}

/** Why a request has no cost: what the log reader needs to tell an unpriced model from a free call. */
function costNote(entry: LogEntry, model: string | null, reportedUsage: boolean, succeeded: boolean, pricedByContent: boolean): string {
  if (!succeeded) return "the request failed";
  if (pricedByContent) return `no price for ${entry.provider ?? "the provider"}/${model ?? "the model"} and what the answer reports (media or rerank)`;
  if (!entry.provider || !model) return "no provider or model to price";
  if (!reportedUsage) return "the answer reported no usage";
  return `no price for ${entry.provider}/${model} in the price table`;
}
