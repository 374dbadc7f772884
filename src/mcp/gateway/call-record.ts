/**
 * The log record of one client request through the MCP gateway, in the same store as model
 * calls: the server as the provider (`mcp:<label>`), the tool (or prompt, or resource) as the
 * model, the JSON-RPC method as the method, the request and the response as the bodies, a
 * JSON-RPC error or a tool's own error (`isError`) as the error, the tool's price as the cost,
 * and the caller's key, trace, end user and metadata.
 */
import { capText } from "../../lib/body-capture.ts";
import { isoNow, uuidv7 } from "../../lib/ids.ts";
import type { LogEntry } from "../../logging/log-entry.ts";
import type { JsonRpcRequest, JsonRpcResponse } from "./json-rpc.ts";
import type { RunLimits } from "../../records/run-limits.ts";

/** Who called, as the log keeps it. */
export interface McpCaller {
  organisationId: string;
  workspaceId: string;
  apiKeyId: string;
  traceId: string | null;
  spanId: string | null;
  parentSpanId: string | null;
  spanName: string | null;
  metadata: Readonly<Record<string, string>>;
  /** The end user (`_user` of `x-gateway-metadata`). */
  user: string | null;
  /** The key's run limits (`run_limits`), for the run breaker; null: none. */
  runLimits: RunLimits | null;
}

/** One request as it ends. */
export interface McpCallEnd {
  /** The server that served it; null for the merged server's own answers (its listings). */
  label: string | null;
  /** The tool, prompt or resource it named. */
  subject: string | null;
  request: JsonRpcRequest;
  response: JsonRpcResponse;
  /** The HTTP path the client posted to. */
  path: string;
  startedAt: number;
  startedAtMs: number;
  costUsd: number | null;
}

/** The operation id MCP records carry as their route. */
export const MCP_ROUTE = "mcp";

export function mcpLogEntry(caller: McpCaller, end: McpCallEnd, maxBodyBytes: number): LogEntry {
  const id = uuidv7(end.startedAtMs);
  const requestText = capText(JSON.stringify(end.request), maxBodyBytes);
  const responseText = JSON.stringify(end.response);
  const response = capText(responseText, maxBodyBytes);
  const error = errorOf(end.response);
  return {
    id,
    createdAt: isoNow(end.startedAtMs),
    organisationId: caller.organisationId,
    workspaceId: caller.workspaceId,
    apiKeyId: caller.apiKeyId,
    virtualKeyId: null,
    provider: end.label === null ? "mcp" : `mcp:${end.label}`,
    model: end.subject,
    route: MCP_ROUTE,
    method: end.request.method,
    path: end.path,
    status: 200,
    stream: false,
    cacheStatus: null,
    cacheSimilarity: null,
    cacheSourceLogId: null,
    cacheNote: null,
    latencyMs: Math.round((performance.now() - end.startedAt) * 1000) / 1000,
    timeToFirstTokenMs: null,
    user: caller.user,
    metadata: caller.metadata as Record<string, string>,
    traceId: caller.traceId ?? id,
    spanId: caller.spanId,
    parentSpanId: caller.parentSpanId,
    spanName: caller.spanName,
    requestBody: requestText.text,
    requestBodyTruncated: requestText.truncated,
    requestBodyBytes: requestText.totalBytes,
    response: { kind: "json-text", text: response.text, totalBytes: response.totalBytes, truncated: response.truncated, tail: null },
    errorCode: error?.code ?? null,
    errorMessage: error?.message ?? null,
    promptId: null,
    promptVersion: null,
    configId: null,
    configVersion: null,
    experimentId: null,
    experimentVariant: null,
    guardrailResults: null,
    attempts: [],
    toolRun: [],
    format: "json",
    genAiOperation: end.request.method === "tools/call" ? "execute_tool" : null,
    fixedCostUsd: error?.code === "tool_error" || error === null ? end.costUsd : null,
  };
}

/** A JSON-RPC error as `jsonrpc_<code>`, a tool's own failure as `tool_error`; null for a success. */
function errorOf(response: JsonRpcResponse): { code: string; message: string } | null {
  if (response.error) return { code: `jsonrpc_${response.error.code}`, message: response.error.message.slice(0, 1000) };
  if (response.result?.isError === true) return { code: "tool_error", message: toolErrorText(response.result).slice(0, 1000) };
  return null;
}

function toolErrorText(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? result.content : [];
  const text = content.map((part) => (part && typeof part === "object" && (part as { type?: unknown }).type === "text" ? String((part as { text?: unknown }).text) : "")).join(" ").trim();
  return text || "the tool reported an error";
}
