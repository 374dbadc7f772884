/**
 * The MCP gateway: agents reach the workspace's stored MCP servers through the gateway, one
 * server at `/mcp/{server_label}` or all of them merged at `/mcp`, over MCP's Streamable HTTP
 * transport, with the gateway's keys, access rules, logs, limits and guardrails. The gateway is
 * an MCP server to the client and an MCP client to each server; sessions are the gateway's own
 * (in Redis when it has one, so any replica continues them).
 * https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http
 */
import { randomBytes } from "node:crypto";
import { GatewayError } from "../../errors.ts";
import type { LogEntry } from "../../logging/log-entry.ts";
import type { FetchLike } from "../../net/upstream-call.ts";
import type { McpAccessRule } from "../../records/api-key.ts";
import { mayUseServer } from "./access-rule.ts";
import { mcpLogEntry, type McpCaller } from "./call-record.ts";
import type { CallScope, Recorded, ToolGate } from "./call-scope.ts";
import { INTERNAL_ERROR, INVALID_REQUEST, isRequest, METHOD_NOT_FOUND, readClientMessage, REFUSED, rpcError, rpcRefusal, type JsonRpcRequest, type JsonRpcResponse } from "./json-rpc.ts";
import { mergedInitializeResult, mergedRequest } from "./merged-server.ts";
import { proxiedRequest } from "./proxied-server.ts";
import { relay } from "./relay.ts";
import type { ServerDirectory } from "./server-directory.ts";
import { sendInSession } from "./session-legs.ts";
import type { GatewaySession, SessionStore } from "./session-store.ts";
import { endServerSession, openServerStream, postMessage, type LegOptions } from "./upstream-leg.ts";

export const SESSION_HEADER = "mcp-session-id";

/** A GET where no server stream is offered: MCP's 405. */
function notAllowed(): Response {
  return Response.json(rpcRefusal(METHOD_NOT_FOUND, "Method Not Allowed: this endpoint offers no stream of server messages."), { status: 405, headers: { allow: "POST, DELETE" } });
}

export interface McpGatewayOptions {
  directory: ServerDirectory;
  sessions: SessionStore;
  fetch: FetchLike;
  toolGate: ToolGate;
  /** One request to a server (`GATEWAY_MCP_CALL_TIMEOUT_MS`). */
  callTimeoutMs: number;
  /** The largest message read from a server (`GATEWAY_MCP_MAX_MESSAGE_BYTES`). */
  maxMessageBytes: number;
  maxLoggedBodyBytes: number;
  log(entry: LogEntry): void;
  version: string;
}

/** One HTTP request of a client. */
export interface McpHttpRequest {
  caller: McpCaller & { access: McpAccessRule | null };
  /** `/mcp/{label}`'s label, or null for `/mcp`. */
  label: string | null;
  sessionId: string | null;
  acceptsStream: boolean;
  signal: AbortSignal;
  path: string;
}

export class McpGateway {
  constructor(private readonly options: McpGatewayOptions) {}

  /** A client's POST: one JSON-RPC message. Never throws. */
  async post(http: McpHttpRequest, text: string): Promise<Response> {
    const unknown = await this.unknownServer(http);
    if (unknown) return unknown;
    const read = readClientMessage(text);
    if (!read.ok) return Response.json(read.error, { status: 400 });
    const message = read.message;
    const scope = this.scope(http);
    if (isRequest(message) && message.method === "initialize") return this.initialize(http, scope, message);
    const found = await this.session(http);
    if (!found.ok) return found.response;
    const session = found.session;
    const label = http.label;
    if (!isRequest(message)) {
      // Notifications and the client's answers to a server: passed on as they are (the merged server keeps them).
      if (label !== null) {
        const server = await this.options.directory.server(session.workspaceId, label);
        if (server.ok) {
          const sent = await sendInSession(session, server.server.upstream, message, this.options.sessions, scope.legOptions);
          if (sent.ok) sent.answer.close();
        }
      }
      return new Response(null, { status: 202 });
    }
    if (label === null) return mergedRequest(scope, session, this.options.directory, message);
    const server = await this.options.directory.server(session.workspaceId, label);
    if (!server.ok) return scope.answer(message, rpcError(message.id, INTERNAL_ERROR, server.unavailable.message), { label, subject: null });
    return proxiedRequest(scope, session, server.server, message);
  }

  /** A client's GET: the server's own stream of messages for the session (`/mcp/{label}` only). */
  async get(http: McpHttpRequest): Promise<Response> {
    if (http.label === null) return notAllowed();
    const unknown = await this.unknownServer(http);
    if (unknown) return unknown;
    const held = await this.session(http);
    if (!held.ok) return held.response;
    const session = held.session;
    const found = await this.options.directory.server(session.workspaceId, http.label);
    const leg = session.upstream[http.label];
    if (!found.ok || !leg) return notAllowed();
    const response = await openServerStream(found.server.upstream, leg, { fetch: this.options.fetch, signal: http.signal });
    if (!response || !response.ok || !(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
      await response?.body?.cancel();
      return notAllowed();
    }
    return new Response(response.body, { status: 200, headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  }

  /** A client's DELETE: ends the gateway session and the servers' sessions behind it. */
  async delete(http: McpHttpRequest): Promise<Response> {
    const unknown = await this.unknownServer(http);
    if (unknown) return unknown;
    const held = await this.session(http);
    if (!held.ok) return held.response;
    const session = held.session;
    await this.options.sessions.delete(session.id);
    await Promise.all(
      Object.entries(session.upstream).map(async ([label, leg]) => {
        const found = await this.options.directory.server(session.workspaceId, label);
        if (found.ok) await endServerSession(found.server.upstream, leg, { fetch: this.options.fetch, signal: http.signal, timeoutMs: this.options.callTimeoutMs });
      }),
    );
    return new Response(null, { status: 200 });
  }

  private async initialize(http: McpHttpRequest, scope: CallScope, request: JsonRpcRequest): Promise<Response> {
    const id = randomBytes(24).toString("base64url");
    const session: GatewaySession = { id, workspaceId: http.caller.workspaceId, apiKeyId: http.caller.apiKeyId, label: http.label, initialize: request.params ?? {}, upstream: {} };
    const headers = { [SESSION_HEADER]: id };
    if (http.label === null) {
      await this.options.sessions.put(session);
      return scope.answer(request, { jsonrpc: "2.0", id: request.id, result: mergedInitializeResult(request.params?.protocolVersion, this.options.version) }, { label: null, subject: null }, headers);
    }
    const label = http.label;
    if (!mayUseServer(http.caller.access, label)) {
      return scope.answer(request, rpcError(request.id, REFUSED, `MCP server ${label} is outside this gateway key's MCP access rule (mcp_access).`), { label, subject: null });
    }
    const found = await this.options.directory.server(http.caller.workspaceId, label);
    if (!found.ok) return scope.answer(request, rpcError(request.id, found.unavailable.kind === "unknown" ? INVALID_REQUEST : INTERNAL_ERROR, found.unavailable.message), { label, subject: null });
    const server = found.server;
    // The client's own initialize goes to the server: it agrees the protocol and capabilities with it.
    const sent = await postMessage(server.upstream, null, request, scope.legOptions);
    if (!sent.ok) return scope.answer(request, rpcError(request.id, INTERNAL_ERROR, server.redactor.text(sent.failure.kind === "failed" ? sent.failure.message : "no session")), { label, subject: null });
    const answer = sent.answer;
    return relay(answer, {
      id: request.id,
      acceptsStream: false,
      headers,
      pass: (message) => server.redactor.json(message, message),
      shape: async (response) => {
        if (response.result) {
          const protocolVersion = typeof response.result.protocolVersion === "string" ? response.result.protocolVersion : null;
          session.upstream = { [label]: { sessionId: answer.sessionId, protocolVersion } };
          await this.options.sessions.put(session);
        }
        return response;
      },
      ended: (response) => scope.record(request, response, { label, subject: null }),
    });
  }

  /** For `/mcp/{server_label}` naming no server of the caller's workspace: a 404 in the gateway's envelope, as for any stored object. */
  private async unknownServer(http: McpHttpRequest): Promise<Response | null> {
    if (http.label === null || (await this.options.directory.labels(http.caller.workspaceId)).includes(http.label)) return null;
    const error = new GatewayError("not_found", `No MCP server labelled ${http.label} is stored in this workspace.`, { param: "server_label" });
    return Response.json(error.toBody(), { status: error.status });
  }

  /** The session the request names, or the answer when it names none this key holds. */
  private async session(http: McpHttpRequest): Promise<{ ok: true; session: GatewaySession } | { ok: false; response: Response }> {
    if (!http.sessionId) return { ok: false, response: Response.json(rpcRefusal(INVALID_REQUEST, "Bad Request: no Mcp-Session-Id header; send initialize first."), { status: 400 }) };
    const session = await this.options.sessions.get(http.sessionId);
    // Another key's session, or another endpoint's, is as unknown as one that never was.
    if (!session || session.apiKeyId !== http.caller.apiKeyId || session.workspaceId !== http.caller.workspaceId || session.label !== http.label) {
      return { ok: false, response: Response.json(rpcRefusal(REFUSED, "Session not found: initialize again."), { status: 404 }) };
    }
    return { ok: true, session };
  }

  private scope(http: McpHttpRequest): CallScope {
    const startedAt = performance.now();
    const startedAtMs = Date.now();
    const legOptions: LegOptions = { fetch: this.options.fetch, signal: http.signal, timeoutMs: this.options.callTimeoutMs, maxMessageBytes: this.options.maxMessageBytes };
    let recorded = false;
    const listeners: ((entry: LogEntry) => void)[] = [];
    const record = (request: JsonRpcRequest, response: JsonRpcResponse, what: Recorded): void => {
      if (recorded) return;
      recorded = true;
      const entry = mcpLogEntry(http.caller, { ...what, subject: what.subject, costUsd: what.costUsd ?? null, request, response, path: http.path, startedAt, startedAtMs }, this.options.maxLoggedBodyBytes);
      this.options.log(entry);
      for (const listener of listeners) listener(entry);
    };
    return {
      caller: http.caller,
      access: http.caller.access,
      acceptsStream: http.acceptsStream,
      sessions: this.options.sessions,
      legOptions,
      toolGate: this.options.toolGate,
      record,
      onRecorded: (listener) => listeners.push(listener),
      answer(request, response, what, headers) {
        record(request, response, what);
        return Response.json(response, { status: 200, headers });
      },
    };
  }
}
