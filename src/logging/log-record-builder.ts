/**
 * From a log entry to its stored record: the answer read in the entry's format (the body kept, cut
 * to the limit; the token usage; the served model), its cost priced, and the sink that builds
 * records on the request thread and stores them through the store's own connection. The readers
 * are the families' own, imported here by name, so the log writer finds them on any thread.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import { field, jsonAnswers, parseJson, stringField, type AnswerReader, type Usage, withSearches } from "../operation/answer-reader.ts";
import { computeCostUsd } from "../operation/cost.ts";
import type { LogEntry, LoggedResponse } from "./log-entry.ts";
import { LOG_ENTRY_FIELD_NAMES } from "../records/log-fields.ts";
import type { LogRecord } from "../records/log-record.ts";
import { capText } from "../lib/body-capture.ts";
import { balancedEnd } from "../guardrails/json-extract.ts";
import { chatAnswers } from "../families/chat/index.ts";
import { responsesAnswers, storedAnswers } from "../families/responses/index.ts";
import { messagesAnswers } from "../families/messages/index.ts";
import { geminiAnswers } from "../families/google/index.ts";
import { imageAnswers, speechAnswers, transcriptionAnswers, videoAnswers } from "../families/media/index.ts";
import { rerankAnswers } from "../families/rerank/index.ts";
import type { LogsRepository } from "../store/logs-repository.ts";
import type { LogSink } from "./log-sink.ts";
import { figuresOf } from "./record-figures.ts";

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

const READERS: ReadonlyMap<string, AnswerReader> = new Map(
  [jsonAnswers, chatAnswers, responsesAnswers, storedAnswers, messagesAnswers, geminiAnswers, imageAnswers, speechAnswers, transcriptionAnswers, videoAnswers, rerankAnswers].map((reader) => [reader.name, reader]),
);

/** The reader a log entry names; an unknown name (an entry spooled by another version) reads as plain JSON. */
export function answerReader(name: string): AnswerReader {
  return READERS.get(name) ?? jsonAnswers;
}

/** What the log keeps of an answer. */
export interface ReadAnswer {
  /** The body as text; null when there was none or it was not text. */
  body: string | null;
  usage: Usage | null;
  servedModel: string | null;
  /** The answer's full size in bytes; null when unknown. */
  totalBytes: number | null;
  truncated: boolean;
}

/** The log's reading of a response by the given reader. Never throws. */
export function readAnswer(response: LoggedResponse | null, reader: AnswerReader): ReadAnswer {
  if (!response) return { body: null, usage: null, servedModel: null, totalBytes: null, truncated: false };
  if (response.kind === "error") return { body: JSON.stringify(response.body), usage: null, servedModel: null, totalBytes: null, truncated: false };
  const { totalBytes } = response;
  if (response.kind === "stream") {
    const { body, usage, servedModel } = reader.stream(response.chunks);
    const cut = capText(JSON.stringify(body), response.maxBytes);
    return { body: cut.text, usage, servedModel, totalBytes, truncated: response.truncated || cut.truncated };
  }
  const { text, truncated } = response;
  if (text === null) return { body: null, usage: null, servedModel: null, totalBytes, truncated };
  const fields = reader.fields ?? { usage: "usage", model: "model" };
  if (!truncated) {
    const parsed = parseJson(text);
    const usage = reader.usage(field(parsed, fields.usage));
    return { body: text, usage: reader.searches ? withSearches(usage, reader.searches(parsed)) : usage, servedModel: stringField(parsed, fields.model), totalBytes, truncated };
  }
  // Only the ends were kept: `usage` comes from the tail, the served model from the head.
  const usage = reader.usage(parseJson(lastObjectValue(response.tail ?? "", fields.usage) ?? ""));
  return { body: text, usage, servedModel: firstStringValue(text, fields.model), totalBytes, truncated };
}

/**
 * The JSON text of the object after the last `"<key>":` in `text`, found by matching braces
 * outside strings; null when there is none or it is cut off.
 */
export function lastObjectValue(text: string, key: string): string | null {
  const match = [...text.matchAll(new RegExp(`"${key}"\\s*:\\s*\\{`, "g"))].at(-1);
  if (!match) return null;
  const start = match.index + match[0].length - 1;
  const end = balancedEnd(text, start);
  return end === -1 ? null : text.slice(start, end);
}

/** The first string value of `"<key>":` in `text` (JSON that may be cut off), or null. */
function firstStringValue(text: string, key: string): string | null {
  const match = new RegExp(`"${key}"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*")`).exec(text);
  const value = match ? parseJson(match[1]!) : null;
  return typeof value === "string" && value.length > 0 ? value : null;
}

/**
 * Records built between two turns of the event loop. This sink runs on the request thread, and a
 * batch grows to thousands under load (`GATEWAY_LOG_MAX_BATCH_SIZE`): built in one go, it would
 * hold every request for tens of milliseconds.
 */
const BUILT_PER_TURN = 200;

/** A log sink that builds the records and stores them through the store's own connection. */
export function storeLogSink(logs: Pick<LogsRepository, "insertBatch" | "ping">): LogSink {
  return {
    async insertBatch(entries, figures) {
      const built: Array<ReturnType<typeof buildLogRecord>> = [];
      for (let start = 0; start < entries.length; start += BUILT_PER_TURN) {
        if (start > 0) await nextTurn();
        for (let i = start; i < Math.min(entries.length, start + BUILT_PER_TURN); i += 1) built.push(buildLogRecord(entries[i]!));
      }
      await logs.insertBatch(built.map(({ record }) => record));
      return figures ? built.map(({ record, servedModel }) => figuresOf(record, servedModel)) : undefined;
    },
    ping: () => logs.ping(),
  };
}
