/**
 * `/mcp/{server_label}`: one stored server through the gateway. Every message passes as the
 * client sent it, and every answer as the server gave it, but for what the gateway owns: the
 * server's credentials and session (the gateway's own), the key's access rule (a tool outside
 * it is neither listed nor called), guardrails and prices of tool calls, and redaction of the
 * server's secrets from everything it answers.
 */
import { INTERNAL_ERROR, INVALID_PARAMS, rpcError, type JsonRpcRequest, type JsonRpcResponse } from "./json-rpc.ts";
import { mayUseTool, toolRefusal } from "./access-rule.ts";
import { relay } from "./relay.ts";
import { sendInSession } from "./session-legs.ts";
import type { GatewaySession } from "./session-store.ts";
import type { GatewayServer } from "./server-directory.ts";
import type { CallScope } from "./call-scope.ts";

/** Serves `request` on `server`; `reshape` changes its final answer further (the merged server's names). */
export async function proxiedRequest(scope: CallScope, session: GatewaySession, server: GatewayServer, request: JsonRpcRequest, reshape: (response: JsonRpcResponse) => JsonRpcResponse = (response) => response): Promise<Response> {
  const label = server.upstream.label;
  const storedTools = server.record.allowedTools;
  const tool = request.method === "tools/call" && typeof request.params?.name === "string" ? request.params.name : null;
  const subject = tool ?? subjectOf(request);
  if (tool !== null && !mayUseTool(scope.access, label, tool, { storedTools })) {
    return scope.answer(request, rpcError(request.id, INVALID_PARAMS, toolRefusal(scope.access, label, tool, { storedTools })), { label, subject });
  }
  const call = tool === null ? null : { caller: scope.caller, server, tool, onRecorded: scope.onRecorded };
  const checked = call === null ? { ok: true as const, request } : await scope.toolGate.before(call, request);
  if (!checked.ok) return scope.answer(request, checked.response, { label, subject, costUsd: null });
  const sent = await sendInSession(session, server.upstream, checked.request, scope.sessions, scope.legOptions);
  if (!sent.ok) {
    const message = sent.failure.kind === "failed" ? sent.failure.message : `MCP server ${label} lost the session.`;
    return scope.answer(request, rpcError(request.id, INTERNAL_ERROR, server.redactor.text(message)), { label, subject });
  }
  return relay(sent.answer, {
    id: request.id,
    acceptsStream: scope.acceptsStream,
    pass: (message) => server.redactor.json(message, message),
    shape: async (response) => {
      if (request.method === "tools/list") return listedTools(response, (name) => mayUseTool(scope.access, label, name, { storedTools }));
      if (call !== null) return scope.toolGate.after(call, response);
      return reshape(response);
    },
    ended: (response) => scope.record(request, response, { label, subject, costUsd: call === null ? null : scope.toolGate.price(call) }),
  });
}

/** A `tools/list` answer with only the tools `allowed` keeps. */
export function listedTools(response: JsonRpcResponse, allowed: (name: string) => boolean): JsonRpcResponse {
  const tools = response.result?.tools;
  if (!Array.isArray(tools)) return response;
  const kept = tools.filter((tool) => tool && typeof tool === "object" && typeof (tool as { name?: unknown }).name === "string" && allowed((tool as { name: string }).name));
  return { ...response, result: { ...response.result, tools: kept } };
}

/** What a request names, for its log record: a prompt, a resource, or a completion's reference. */
export function subjectOf(request: JsonRpcRequest): string | null {
  const params = request.params ?? {};
  if (typeof params.name === "string") return params.name.slice(0, 200);
  if (typeof params.uri === "string") return params.uri.slice(0, 200);
  return null;
}
