import type { RouteConfig } from "@hono/zod-openapi";
import { CACHE_STATUS_HEADER } from "../cache/response-cache.ts";
import type { Context, MiddlewareHandler, TypedResponse } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { GatewayError, type Result } from "../errors.ts";
import { isJsonContentType } from "../middleware/limit-body-size.ts";
import { logRequests } from "../middleware/log-requests.ts";
import type { OperationDescriptor } from "./operation.ts";
import type { ProxyDeps, ProxyInput, ProxyResponse } from "./proxy-operation.ts";
import type { RequestBody } from "./upstream-request.ts";
import { forwardedRequestHeaders } from "./header-rules.ts";

/** The services the proxy core uses, picked from the gateway's. */
export function proxyDeps(deps: GatewayDeps): ProxyDeps {
  return {
    fetch: deps.fetch,
    breakers: deps.breakers,
    cache: deps.cache,
    checkCustomHost: deps.checkCustomHost,
    defaultTimeoutMs: deps.config.GATEWAY_REQUEST_TIMEOUT_MS,
    maxLoggedBodyBytes: deps.config.GATEWAY_MAX_LOGGED_BODY_BYTES,
    maxResponseBufferBytes: deps.config.GATEWAY_MAX_RESPONSE_BUFFER_BYTES,
    streamStallTimeoutMs: deps.config.GATEWAY_STREAM_STALL_TIMEOUT_MS,
    store: deps.store,
    controlPlane: deps.controlPlane,
    secrets: deps.secrets,
    spend: deps.spend,
  };
}

/** The gateway headers that steer a proxied request, as a route's generated validator passes them. */
export interface ProxyRouteHeaders {
  "x-gateway-provider"?: string;
  Authorization?: string;
  "x-gateway-upstream-organization"?: string;
  "x-gateway-upstream-project"?: string;
  "x-gateway-custom-host"?: string;
  "x-gateway-virtual-key"?: string;
  "x-gateway-config"?: string;
  "x-gateway-request-timeout"?: number;
  "x-gateway-cache-force-refresh"?: boolean;
  "x-gateway-cache-namespace"?: string;
}

/**
 * The gateway headers that select and authorise the target; `header` reads any other request
 * header by name, for the credential fields a provider declares (`x-gateway-aws-region`).
 */
export function targetHeaders(headers: ProxyRouteHeaders, header?: (name: string) => string | undefined): ProxyInput["headers"] {
  return {
    header,
    provider: headers["x-gateway-provider"],
    authorization: headers.Authorization,
    organization: headers["x-gateway-upstream-organization"],
    project: headers["x-gateway-upstream-project"],
    customHost: headers["x-gateway-custom-host"],
    virtualKey: headers["x-gateway-virtual-key"],
    config: headers["x-gateway-config"],
    timeout: headers["x-gateway-request-timeout"],
    cacheForceRefresh: headers["x-gateway-cache-force-refresh"],
    cacheNamespace: headers["x-gateway-cache-namespace"],
  };
}

/**
 * The proxy input of a route whose body is JSON: the body its validator parsed, with the
 * client's exact text (cached by the validator) for the log and the upstream.
 */
export async function jsonProxyInput(c: Context<GatewayEnv>, body: Record<string, unknown>, headers: ProxyRouteHeaders): Promise<ProxyInput> {
  return {
    body: { kind: "json", value: body, raw: await c.req.text() },
    headers: targetHeaders(headers, (name) => c.req.header(name)),
    forwardedHeaders: forwardedHeaders(c),
    workspaceId: c.get("auth").workspaceId,
    gatewayKeyLimits: c.get("auth").limits,
    clientSignal: c.req.raw.signal,
    log: c.get("requestLog"),
  };
}

/**
 * The proxy input of a request whose body goes upstream as it arrives (a multipart upload, a
 * binary body) or that has none (GET, HEAD, DELETE without a body), with the client headers
 * upstream APIs need passed along.
 */
export function forwardedProxyInput(c: Context<GatewayEnv>, headers: ProxyRouteHeaders): ProxyInput {
  return {
    body: forwardedBody(c),
    headers: targetHeaders(headers, (name) => c.req.header(name)),
    forwardedHeaders: forwardedHeaders(c),
    workspaceId: c.get("auth").workspaceId,
    gatewayKeyLimits: c.get("auth").limits,
    clientSignal: c.req.raw.signal,
    log: c.get("requestLog"),
  };
}

/**
 * The proxy input of an operation that takes JSON or a form: a JSON body as its validator
 * parsed it, any other as it arrives. The operation's body kind follows the one sent.
 */
export async function jsonOrForwardedProxyInput(
  c: Context<GatewayEnv>,
  operation: OperationDescriptor,
  headers: ProxyRouteHeaders,
): Promise<{ operation: OperationDescriptor; input: ProxyInput }> {
  if (!isJsonContentType(c.req.header("content-type"))) return { operation: { ...operation, body: "as-sent" }, input: forwardedProxyInput(c, headers) };
  // The route's JSON validator ran (it runs for a JSON body only); its type is lost because the
  // route also declares a form without a schema, which keeps the form from being parsed.
  const validated = c.req as unknown as { valid(target: "json"): Record<string, unknown> };
  return { operation: { ...operation, body: "json" }, input: await jsonProxyInput(c, validated.valid("json"), headers) };
}

/**
 * The request's body as it arrives, with its content type; none for GET and HEAD, and none when
 * the request declares no body (no `transfer-encoding`, a `content-length` absent or 0: an empty
 * POST such as a cancel), so that none is sent upstream rather than an empty chunked one.
 */
export function forwardedBody(c: Context<GatewayEnv>): RequestBody {
  const { body } = c.req.raw;
  if (c.req.method === "GET" || c.req.method === "HEAD" || body === null) return { kind: "none" };
  const length = c.req.header("content-length");
  const chunked = c.req.header("transfer-encoding") !== undefined;
  if (!chunked && (length === undefined || length.trim() === "0")) return { kind: "none" };
  // A JSON body was read already, within its deadline (`limitBodyTime`): the text read is sent.
  if (c.req.raw.bodyUsed) return { kind: "as-sent", stream: textStream(c.req.text()), contentType: c.req.header("content-type") ?? null, length: null };
  // With a transfer-encoding the length is not the body's (and the HTTP server refused a mix).
  const declared = chunked || length === undefined || !/^\s*\d+\s*$/.test(length) ? null : Number(length);
  return { kind: "as-sent", stream: body, contentType: c.req.header("content-type") ?? null, length: declared };
}

/** A body already read (Hono keeps the text) as a stream again, for a route that forwards it. */
function textStream(text: Promise<string>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      try {
        controller.enqueue(new TextEncoder().encode(await text));
        controller.close();
      } catch (error) {
        controller.error(error);
      }
    },
  });
}

/** The client's headers that go upstream (`header-rules.ts`). */
export function forwardedHeaders(c: Context<GatewayEnv>): Record<string, string> {
  return forwardedRequestHeaders(c.req.raw.headers);
}

/**
 * The request's path after `/v1`, with its query: where a forwarded operation goes under the
 * provider's base URL. Dot segments (also percent-encoded), encoded slashes and backslashes and
 * empty segments are refused (400), so the path stays under that base URL.
 */
export function pathAfterV1(url: URL): string {
  const rest = url.pathname.slice("/v1".length);
  if (/(^|\/)(\.|%2e){1,2}(\/|$)/i.test(rest) || /\\|%5c|%2f/i.test(rest) || rest.includes("//")) {
    throw new GatewayError("invalid_request", "The path may not hold dot segments, backslashes, encoded slashes or empty segments.", { param: "path" });
  }
  return `${rest}${url.search}`;
}

/**
 * A proxied operation's route with the request log in front of it, so every request is logged,
 * those refused by the route's own checks included.
 */
export function loggedRoute<R extends RouteConfig>(route: R, deps: GatewayDeps): R {
  const own = route.middleware === undefined ? [] : Array.isArray(route.middleware) ? route.middleware : [route.middleware];
  return { ...route, middleware: [requestLogger(route.operationId ?? route.path, deps), ...own] };
}

/** The request log middleware of one operation (`logRequests` with the gateway's writer and limits). */
export function requestLogger(operationId: string, deps: GatewayDeps): MiddlewareHandler<GatewayEnv> {
  return logRequests({ writer: deps.logWriter, inflight: deps.inflight, route: operationId, maxBodyBytes: deps.config.GATEWAY_MAX_LOGGED_BODY_BYTES });
}

/**
 * Reads a request body nobody will read to its end, discarding it. A forwarded body is a stream
 * over the connection; refused before the upstream read it (no provider, a bad config), it would
 * sit unread under backpressure while the answer goes out with keep-alive, and the Node server
 * then closes the connection under the client's next request ("socket hang up"). Never throws.
 */
function discardUnreadBody(request: Request): void {
  const body = request.body;
  if (body && !body.locked) void body.pipeTo(new WritableStream()).catch(() => undefined);
}

/**
 * The proxy's answer as the route's response; an expected failure goes to the app's error
 * handler. The body is the upstream's (checked by the core, relayed as it arrives), not an object
 * built here, so it is typed as fitting any JSON answer the route documents.
 */
export function proxyResponse(c: Context<GatewayEnv>, result: Result<ProxyResponse, GatewayError>): Response & TypedResponse<never, 200, "json"> {
  // On errors too: a request that failed before the cache looked was not served by it.
  c.header(CACHE_STATUS_HEADER, c.get("requestLog").cacheStatus ?? "DISABLED");
  if (!result.ok) {
    discardUnreadBody(c.req.raw);
    throw result.error;
  }
  const { status, headers, body } = result.value;
  // A 204 or 205 carries no body at all (the Response constructor refuses even an empty one).
  if (status === 204 || status === 205) return c.body(null, status as 200, headers) as unknown as Response & TypedResponse<never, 200, "json">;
  return c.body(body, status as 200, headers) as unknown as Response & TypedResponse<never, 200, "json">;
}
