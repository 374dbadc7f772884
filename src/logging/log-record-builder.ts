import { createChatStreamAssembler, normaliseUsage, type Usage } from "../core/chat-stream-assembler.ts";
import { capText } from "../core/body-capture.ts";
import { computeCostUsd } from "../core/cost.ts";
import type { LogEntry, LoggedResponse } from "./log-entry.ts";
import type { LogRecord } from "./log-record.ts";
import { balancedEnd } from "../guardrails/json-extract.ts";

const ZERO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, cachedTokens: 0, reasoningTokens: 0 };

/** The stored record of an entry: the response parsed (a stream assembled), tokens counted, cost priced. Never throws. */
export function toLogRecord(entry: LogEntry): LogRecord {
  const { body, usage, servedModel, totalBytes, truncated } = describeResponse(entry.response);
  const model = entry.model;
  const costModel = servedModel ?? model;
  const costUsd = entry.provider && costModel && usage ? computeCostUsd(entry.provider, costModel, usage) : null;
  const counted = usage ?? ZERO_USAGE;
  return {
    id: entry.id,
    createdAt: entry.createdAt,
    organisationId: entry.organisationId,
    workspaceId: entry.workspaceId,
    apiKeyId: entry.apiKeyId,
    virtualKeyId: entry.virtualKeyId,
    provider: entry.provider,
    model,
    route: entry.route,
    method: entry.method,
    path: entry.path,
    status: entry.status,
    success: entry.errorMessage === null && entry.status < 400,
    stream: entry.stream,
    latencyMs: entry.latencyMs,
    timeToFirstTokenMs: entry.timeToFirstTokenMs,
    promptTokens: counted.promptTokens,
    completionTokens: counted.completionTokens,
    totalTokens: counted.totalTokens,
    cachedTokens: counted.cachedTokens,
    reasoningTokens: counted.reasoningTokens,
    costUsd,
    user: entry.user,
    metadata: entry.metadata,
    traceId: entry.traceId,
    spanId: entry.spanId,
    parentSpanId: entry.parentSpanId,
    spanName: entry.spanName,
    requestBody: entry.requestBody,
    requestBodyTruncated: entry.requestBodyTruncated,
    requestBodyBytes: entry.requestBodyBytes,
    responseBody: body,
    responseBodyTruncated: truncated,
    responseBodyBytes: totalBytes,
    errorCode: entry.errorCode,
    errorMessage: entry.errorMessage,
    promptId: entry.promptId,
    promptVersion: entry.promptVersion,
    guardrailResults: entry.guardrailResults ? JSON.stringify(entry.guardrailResults) : null,
  };
}

interface DescribedResponse {
  body: string | null;
  usage: Usage | null;
  servedModel: string | null;
  totalBytes: number | null;
  truncated: boolean;
}

function describeResponse(response: LoggedResponse | null): DescribedResponse {
  if (!response) return { body: null, usage: null, servedModel: null, totalBytes: null, truncated: false };
  if (response.kind === "error") return { body: JSON.stringify(response.body), usage: null, servedModel: null, totalBytes: null, truncated: false };
  const { totalBytes } = response;
  if (response.kind === "json-text") {
    if (!response.truncated) {
      const parsed = safeParse(response.text);
      return { body: response.text, usage: normaliseUsage(field(parsed, "usage")), servedModel: stringField(parsed, "model"), totalBytes, truncated: false };
    }
    // Only the ends were kept: `usage` comes from the tail, the served model from the head.
    const usage = normaliseUsage(safeParse(lastObjectValue(response.tail ?? "", "usage") ?? ""));
    return { body: response.text, usage, servedModel: firstStringValue(response.text, "model"), totalBytes, truncated: true };
  }
  const assembler = createChatStreamAssembler();
  for (const chunk of response.chunks) assembler.add(safeParse(chunk));
  const { completion, usage } = assembler.result();
  const cut = capText(JSON.stringify(completion), response.maxBytes);
  return { body: cut.text, usage, servedModel: stringField(completion, "model"), totalBytes, truncated: response.truncated || cut.truncated };
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
  const value = match ? safeParse(match[1]!) : null;
  return typeof value === "string" && value.length > 0 ? value : null;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function field(value: unknown, key: string): unknown {
  return value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
}

function stringField(value: unknown, key: string): string | null {
  const found = field(value, key);
  return typeof found === "string" && found.length > 0 ? found : null;
}
