import { createChatStreamAssembler, normaliseUsage, type Usage } from "../core/chat-stream-assembler.ts";
import { computeCostUsd } from "../core/cost.ts";
import type { LogEntry, LoggedResponse } from "./log-entry.ts";
import type { LogRecord } from "./log-record.ts";

const ZERO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, cachedTokens: 0, reasoningTokens: 0 };

/** The stored record of an entry: the response parsed (a stream assembled), tokens counted, cost priced. Never throws. */
export function toLogRecord(entry: LogEntry): LogRecord {
  const { body, usage, servedModel } = describeResponse(entry.response);
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
    responseBody: body,
    errorCode: entry.errorCode,
    errorMessage: entry.errorMessage,
    promptId: entry.promptId,
    promptVersion: entry.promptVersion,
    guardrailResults: entry.guardrailResults ? JSON.stringify(entry.guardrailResults) : null,
  };
}

function describeResponse(response: LoggedResponse | null): { body: string | null; usage: Usage | null; servedModel: string | null } {
  if (!response) return { body: null, usage: null, servedModel: null };
  if (response.kind === "error") return { body: JSON.stringify(response.body), usage: null, servedModel: null };
  if (response.kind === "json-text") {
    const parsed = safeParse(response.text);
    return { body: response.text, usage: normaliseUsage(field(parsed, "usage")), servedModel: stringField(parsed, "model") };
  }
  const assembler = createChatStreamAssembler();
  for (const chunk of response.chunks) assembler.add(safeParse(chunk));
  const { completion, usage } = assembler.result();
  return { body: JSON.stringify(completion), usage, servedModel: stringField(completion, "model") };
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
