/**
 * `/mcp`: the workspace's servers as one. Tools and prompts are named `<label>__<name>`,
 * resources `mcp-gateway://<label>/<uri>`; listings merge every server the key may use (a
 * server that cannot be listed is named in the listing's `_meta`, the others still listed),
 * and a call, a read or a prompt goes to the server its name says, under the name that server
 * knows.
 */
import { INVALID_PARAMS, METHOD_NOT_FOUND, PROTOCOL_VERSIONS, rpcError, type JsonRpcRequest, type JsonRpcResponse } from "./json-rpc.ts";
import { mayUseServer, mayUseTool } from "./access-rule.ts";
import { proxiedRequest } from "./proxied-server.ts";
import { responseTo, sendInSession } from "./session-legs.ts";
import type { CallScope } from "./call-scope.ts";
import type { GatewaySession } from "./session-store.ts";
import type { GatewayServer, ServerDirectory } from "./server-directory.ts";

/** Between a server's label and a tool's or prompt's name: MCP clients accept it in names (`[A-Za-z0-9_-]`). */
export const NAME_SEPARATOR = "__";
const RESOURCE_SCHEME = "mcp-gateway://";
/** The most pages of one listing read from one server. */
const MAX_PAGES = 20;

type Kind = "tools" | "prompts" | "resources" | "resourceTemplates";
const LISTS: Record<string, Kind> = { "tools/list": "tools", "prompts/list": "prompts", "resources/list": "resources", "resources/templates/list": "resourceTemplates" };

/** The gateway's own `initialize` answer: the client's protocol revision when the gateway speaks it. */
export function mergedInitializeResult(requested: unknown, version: string): Record<string, unknown> {
  const protocolVersion = (PROTOCOL_VERSIONS as readonly unknown[]).includes(requested) ? requested : PROTOCOL_VERSIONS[0];
  return {
    protocolVersion,
    capabilities: { tools: {}, prompts: {}, resources: {}, completions: {} },
    serverInfo: { name: "ai-gateway", version },
    instructions: `The tools, prompts and resources of this workspace's MCP servers, named <server>${NAME_SEPARATOR}<name>.`,
  };
}

export async function mergedRequest(scope: CallScope, session: GatewaySession, directory: ServerDirectory, request: JsonRpcRequest): Promise<Response> {
  const kind = LISTS[request.method];
  if (kind) return scope.answer(request, await mergedList(scope, session, directory, request, kind), { label: null, subject: null });
  if (request.method === "ping" || request.method === "logging/setLevel") return scope.answer(request, { jsonrpc: "2.0", id: request.id, result: {} }, { label: null, subject: null });
  const routed = routedRequest(request);
  if (!routed) return scope.answer(request, rpcError(request.id, METHOD_NOT_FOUND, `Method not found: ${request.method.slice(0, 100)}.`), { label: null, subject: null });
  if ("error" in routed) return scope.answer(request, rpcError(request.id, INVALID_PARAMS, routed.error), { label: null, subject: null });
  const target = routed.split(await directory.labels(session.workspaceId));
  if (!target || !mayUseServer(scope.access, target.label)) {
    return scope.answer(request, rpcError(request.id, INVALID_PARAMS, `${routed.what} ${routed.name.slice(0, 200)} names no MCP server this key may use.`), { label: null, subject: routed.name.slice(0, 200) });
  }
  const found = await directory.server(session.workspaceId, target.label);
  if (!found.ok) return scope.answer(request, rpcError(request.id, INVALID_PARAMS, found.unavailable.message), { label: target.label, subject: null });
  return proxiedRequest(scope, session, found.server, routed.rewrite(target.inner), (response) => resourcesRenamed(response, target.label));
}

interface Routed {
  name: string;
  what: string;
  /** The server and its own name for what the request names, among the workspace's labels. */
  split(labels: readonly string[]): { label: string; inner: string } | null;
  rewrite(inner: string): JsonRpcRequest;
}

/** What a routed request names (a tool, prompt or resource), and the request under the server's own name for it. */
function routedRequest(request: JsonRpcRequest): Routed | { error: string } | null {
  const params = request.params ?? {};
  const withParams = (next: Record<string, unknown>): JsonRpcRequest => ({ ...request, params: { ...params, ...next } });
  const named = (name: string, what: string, rewrite: (inner: string) => JsonRpcRequest): Routed => ({ name, what, split: (labels) => splitName(name, labels), rewrite });
  const resource = (uri: string, rewrite: (inner: string) => JsonRpcRequest): Routed => ({ name: uri, what: "Resource", split: () => splitUri(uri), rewrite });
  if (request.method === "tools/call" || request.method === "prompts/get") {
    if (typeof params.name !== "string") return { error: "params.name must be a string." };
    return named(params.name, request.method === "tools/call" ? "Tool" : "Prompt", (inner) => withParams({ name: inner }));
  }
  if (request.method === "resources/read" || request.method === "resources/subscribe" || request.method === "resources/unsubscribe") {
    if (typeof params.uri !== "string") return { error: "params.uri must be a string." };
    return resource(params.uri, (inner) => withParams({ uri: inner }));
  }
  if (request.method === "completion/complete") {
    const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
    if (ref?.type === "ref/prompt" && typeof ref.name === "string") return named(ref.name, "Prompt", (inner) => withParams({ ref: { ...ref, name: inner } }));
    if (ref?.type === "ref/resource" && typeof ref.uri === "string") return resource(ref.uri, (inner) => withParams({ ref: { ...ref, uri: inner } }));
    return { error: "params.ref must name a prompt or a resource." };
  }
  return null;
}

/** `<label>__<name>`, the longest label that fits winning (a label may itself hold `__`). */
function splitName(name: string, labels: readonly string[]): { label: string; inner: string } | null {
  const label = labels.filter((candidate) => name.startsWith(`${candidate}${NAME_SEPARATOR}`)).sort((a, b) => b.length - a.length)[0];
  return label === undefined ? null : { label, inner: name.slice(label.length + NAME_SEPARATOR.length) };
}

/** `mcp-gateway://<label>/<uri>`: a label holds no `/`. */
function splitUri(uri: string): { label: string; inner: string } | null {
  if (!uri.startsWith(RESOURCE_SCHEME)) return null;
  const rest = uri.slice(RESOURCE_SCHEME.length);
  const slash = rest.indexOf("/");
  return slash <= 0 ? null : { label: rest.slice(0, slash), inner: rest.slice(slash + 1) };
}

/** A `resources/read` answer with its contents' URIs as the merged server names them. */
function resourcesRenamed(response: JsonRpcResponse, label: string): JsonRpcResponse {
  const contents = response.result?.contents;
  if (!Array.isArray(contents)) return response;
  const renamedContents = contents.map((item) => (item && typeof item === "object" && typeof (item as { uri?: unknown }).uri === "string" ? { ...item, uri: `${RESOURCE_SCHEME}${label}/${(item as { uri: string }).uri}` } : item));
  return { ...response, result: { ...response.result, contents: renamedContents } };
}

async function mergedList(scope: CallScope, session: GatewaySession, directory: ServerDirectory, request: JsonRpcRequest, kind: Kind): Promise<JsonRpcResponse> {
  const labels = (await directory.labels(session.workspaceId)).filter((label) => mayUseServer(scope.access, label));
  const listed = await Promise.all(labels.map((label) => listOne(scope, session, directory, label, request.method, kind)));
  const items = listed.flatMap((result) => ("items" in result ? result.items : []));
  const unavailable = listed.flatMap((result) => ("error" in result ? [{ server: result.label, error: result.error }] : []));
  return { jsonrpc: "2.0", id: request.id, result: { [kind]: items, ...(unavailable.length > 0 && { _meta: { "mcp-gateway/unavailable": unavailable } }) } };
}

async function listOne(scope: CallScope, session: GatewaySession, directory: ServerDirectory, label: string, method: string, kind: Kind): Promise<{ label: string; items: unknown[] } | { label: string; error: string }> {
  const found = await directory.server(session.workspaceId, label);
  if (!found.ok) return { label, error: found.unavailable.message };
  const server = found.server;
  const items: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const id = `gateway-list-${page}`;
    const sent = await sendInSession(session, server.upstream, { jsonrpc: "2.0", id, method, ...(cursor && { params: { cursor } }) }, scope.sessions, scope.legOptions);
    if (!sent.ok) return { label, error: server.redactor.text(sent.failure.kind === "failed" ? sent.failure.message : "the session was lost") };
    const response = await responseTo(sent.answer.messages, id).catch((error: unknown) => rpcError(id, -32603, String(error)));
    if (!response?.result) {
      // A server without the capability answers "method not found": it lists nothing.
      if (response?.error?.code === METHOD_NOT_FOUND) return { label, items };
      return { label, error: server.redactor.text(response?.error?.message ?? "no answer") };
    }
    const found = response.result[kind];
    if (Array.isArray(found)) items.push(...found.flatMap((item) => renamed(item, label, kind, server, toolFilter(scope, label, server))));
    cursor = typeof response.result.nextCursor === "string" ? response.result.nextCursor : undefined;
    if (!cursor) break;
  }
  return { label, items };
}

/** A listed item under its merged name; none when the key may not use it (a tool outside its rule). */
function renamed(item: unknown, label: string, kind: Kind, server: GatewayServer, toolAllowed: (name: string) => boolean): unknown[] {
  if (!item || typeof item !== "object") return [];
  const value = server.redactor.json(item as Record<string, unknown>, item as Record<string, unknown>);
  if (kind === "tools" || kind === "prompts") {
    if (typeof value.name !== "string") return [];
    if (kind === "tools" && !toolAllowed(value.name)) return [];
    return [{ ...value, name: `${label}${NAME_SEPARATOR}${value.name}` }];
  }
  if (kind === "resources" && typeof value.uri === "string") return [{ ...value, uri: `${RESOURCE_SCHEME}${label}/${value.uri}`, name: `${label}${NAME_SEPARATOR}${String(value.name ?? value.uri)}` }];
  if (kind === "resourceTemplates" && typeof value.uriTemplate === "string") return [{ ...value, uriTemplate: `${RESOURCE_SCHEME}${label}/${value.uriTemplate}` }];
  return [];
}

/** Tools the key may list from one server (its stored allowed tools, the key's rule). */
export function toolFilter(scope: CallScope, label: string, server: GatewayServer): (name: string) => boolean {
  return (name) => mayUseTool(scope.access, label, name, { storedTools: server.record.allowedTools });
}
