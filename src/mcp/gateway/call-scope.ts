import type { McpAccessRule } from "../../records/api-key.ts";
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

/**
 * What the gateway does around one tool call: before it (limits, guardrails on the arguments:
 * a refusal is the response), after it (guardrails on the result), and its price.
 */
export interface ToolGate {
  before(server: GatewayServer, tool: string, request: JsonRpcRequest): Promise<{ ok: true; request: JsonRpcRequest } | { ok: false; response: JsonRpcResponse }>;
  after(server: GatewayServer, tool: string, response: JsonRpcResponse): Promise<JsonRpcResponse>;
  price(server: GatewayServer, tool: string): number | null;
}

/** One client request's surroundings: who asked, how it is answered and recorded. */
export interface CallScope {
  access: McpAccessRule | null;
  acceptsStream: boolean;
  sessions: SessionStore;
  legOptions: LegOptions;
  toolGate: ToolGate;
  /** Records the request with its response (once), and answers the client with it as JSON. */
  answer(request: JsonRpcRequest, response: JsonRpcResponse, recorded: Recorded, headers?: Record<string, string>): Response;
  /** Records the request with the response the client got. Called once per request. */
  record(request: JsonRpcRequest, response: JsonRpcResponse, recorded: Recorded): void;
}
