/**
 * JSON-RPC 2.0 as MCP uses it: the messages a client posts, read and checked, and the error
 * answers the gateway gives in MCP's own terms.
 * https://modelcontextprotocol.io/specification/2025-06-18/basic#messages
 */

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcResponse {
  jsonrpc: "2.0";
  id: JsonRpcId | null;
  result?: Record<string, unknown>;
  error?: JsonRpcError;
}

export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** MCP's code for a request the server refuses by its rules (the gateway's access rule, a limit, a guardrail). */
export const REFUSED = -32001;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

export function isRequest(message: JsonRpcMessage): message is JsonRpcRequest {
  return "method" in message && "id" in message;
}

export function isNotification(message: JsonRpcMessage): message is JsonRpcNotification {
  return "method" in message && !("id" in message);
}

export function isResponse(message: JsonRpcMessage): message is JsonRpcResponse {
  return !("method" in message);
}

export function rpcError(id: JsonRpcId | null, code: number, message: string, data?: unknown): JsonRpcResponse {
  return { jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } };
}

/**
 * A JSON-RPC error the gateway answers with an HTTP 4xx (a body it cannot read, a session it does
 * not hold): its error also carries the `type` of the gateway's error envelope, so a client that
 * reads either finds the message.
 */
export function rpcRefusal(code: number, message: string): JsonRpcResponse & { error: JsonRpcError & { type: string } } {
  return { jsonrpc: "2.0", id: null, error: { code, message, type: "invalid_request_error" } };
}

/** One message of a client's POST, or the error to answer: a batch (which MCP dropped in 2025-06-18) is refused. Never throws. */
export function readClientMessage(text: string): { ok: true; message: JsonRpcMessage } | { ok: false; error: JsonRpcResponse } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: rpcRefusal(PARSE_ERROR, "Parse error: the body is not JSON.") };
  }
  if (Array.isArray(value)) return { ok: false, error: rpcRefusal(INVALID_REQUEST, "Invalid Request: send one JSON-RPC message per POST; batches are not taken.") };
  const message = asMessage(value);
  if (!message) return { ok: false, error: rpcRefusal(INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 request, notification or response.") };
  return { ok: true, message };
}

/** `value` as a JSON-RPC message, or null when it is none. */
export function asMessage(value: unknown): JsonRpcMessage | null {
  if (!isObject(value) || value.jsonrpc !== "2.0") return null;
  if (value.params !== undefined && !isObject(value.params)) return null;
  if (typeof value.method === "string") {
    if (value.method.length === 0 || value.method.length > 256) return null;
    if ("id" in value && !isId(value.id)) return null;
    return value as unknown as JsonRpcMessage;
  }
  if (!("id" in value) || (value.id !== null && !isId(value.id))) return null;
  const hasResult = isObject(value.result);
  const hasError = isObject(value.error) && typeof value.error.code === "number" && typeof value.error.message === "string";
  return hasResult !== hasError ? (value as unknown as JsonRpcResponse) : null;
}

function isId(value: unknown): value is JsonRpcId {
  return (typeof value === "string" && value.length <= 256) || (typeof value === "number" && Number.isFinite(value));
}

/** The protocol revisions the gateway's own server answers in, newest first: those the official SDK accepts (tested against it). */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"] as const;
