import type { McpAccessRule } from "../../records/api-key.ts";
import type { McpCaller } from "./call-record.ts";
import type { LogEntry } from "../../logging/log-entry.ts";
import type { JsonRpcRequest, JsonRpcResponse } from "./json-rpc.ts";
import type { GatewayServer } from "./server-directory.ts";
import type { SessionStore } from "./session-store.ts";
import type { LegOptions } from "./upstream-leg.ts";

/** How a request is recorded: the server that served it, what it named, its price. */
export interface Recorded {
  label: string | null;
  subject: string | null;
  costUsd?: number | null;
}

/** One tool call: who calls, on which server, which tool. */
export interface ToolCall {
  caller: McpCaller & { access: McpAccessRule | null };
  server: GatewayServer;
  tool: string;
  /** Hears the call's log entry once it is built (budgets settle there). */
  onRecorded(listener: (entry: LogEntry) => void): void;
}

/**
 * What the gateway does around one tool call: before it (limits, guardrails on the arguments:
 * a refusal is the response), after it (guardrails on the result), and its price.
 */
export interface ToolGate {
  before(call: ToolCall, request: JsonRpcRequest): Promise<{ ok: true; request: JsonRpcRequest } | { ok: false; response: JsonRpcResponse }>;
  after(call: ToolCall, response: JsonRpcResponse): Promise<JsonRpcResponse>;
  price(call: ToolCall): number | null;
}

/** One client request's surroundings: who asked, how it is answered and recorded. */
export interface CallScope {
  caller: McpCaller & { access: McpAccessRule | null };
  access: McpAccessRule | null;
  acceptsStream: boolean;
  sessions: SessionStore;
  legOptions: LegOptions;
  toolGate: ToolGate;
  /** Records the request with its response (once), and answers the client with it as JSON. */
  answer(request: JsonRpcRequest, response: JsonRpcResponse, recorded: Recorded, headers?: Record<string, string>): Response;
  /** Records the request with the response the client got. Called once per request. */
  record(request: JsonRpcRequest, response: JsonRpcResponse, recorded: Recorded): void;
  /** Hears the request's log entry once `record` built it. */
  onRecorded(listener: (entry: LogEntry) => void): void;
}
