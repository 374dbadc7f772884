import type { RouteConfig, RouteHandler } from "@hono/zod-openapi";
import { CACHE_STATUS_HEADER } from "../../cache/response-cache.ts";
import type { Context, MiddlewareHandler, TypedResponse } from "hono";
import type { GatewayApp, GatewayEnv } from "../../app-env.ts";
import type { GatewayDeps } from "../../deps.ts";
import { GatewayError } from "../../errors.ts";
import { handleError } from "../../app-errors.ts";
import { exchangeOpener, logHeadersHook, logRequests, type RequestLogOptions } from "../../middleware/log-requests.ts";
import { compileRequestReader, type ValidationHook } from "./request-reader.ts";
import type { OperationDescriptor } from "../../operation/descriptor.ts";
import type { ProxyDeps, ProxyInput, ProxyResult } from "../../pipeline/proxy-operation.ts";
import type { RequestBody } from "../../operation/request-body.ts";
import { forwardedRequestHeaders } from "../../net/header-rules.ts";

/** The services the proxy core uses, picked from the gateway's. */
export function proxyDeps(deps: GatewayDeps): ProxyDeps {
  return {
    fetch: deps.fetch,
    breakers: deps.breakers,
    cache: deps.cache,
    cacheEmbedding: { embeddings: deps.embeddings, timeoutMs: deps.config.GATEWAY_SEMANTIC_CACHE_EMBEDDING_TIMEOUT_MS },
    checkCustomHost: deps.checkCustomHost,
    defaultTimeoutMs: deps.config.GATEWAY_REQUEST_TIMEOUT_MS,
    maxLoggedBodyBytes: deps.config.GATEWAY_MAX_LOGGED_BODY_BYTES,
    maxResponseBufferBytes: deps.config.GATEWAY_MAX_RESPONSE_BUFFER_BYTES,
    streamStallTimeoutMs: deps.config.GATEWAY_STREAM_STALL_TIMEOUT_MS,
    store: deps.store,
    controlPlane: deps.controlPlane,
    secrets: deps.secrets,
    spend: deps.spend,
    runs: deps.runs,
    toolRunLimits: {
      maxRounds: deps.config.GATEWAY_MCP_MAX_ROUNDS,
      callTimeoutMs: deps.config.GATEWAY_MCP_CALL_TIMEOUT_MS,
      runTimeoutMs: deps.config.GATEWAY_MCP_RUN_TIMEOUT_MS,
      maxResultBytes: deps.config.GATEWAY_MCP_MAX_RESULT_BYTES,
      maxMessageBytes: deps.config.GATEWAY_MCP_MAX_MESSAGE_BYTES,
      maxTools: deps.config.GATEWAY_MCP_MAX_TOOLS,
      maxToolsBytes: deps.config.GATEWAY_MCP_MAX_TOOLS_BYTES,
      maxCallsPerRound: deps.config.GATEWAY_MCP_MAX_CALLS_PER_ROUND,
    },
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

/** Who calls, as the proxy input names them: workspace, key, metadata, and where spend settles. */
export function callerOf(
  c: Context<GatewayEnv>,
): Pick<ProxyInput, "workspaceId" | "logId" | "gatewayKeyId" | "gatewayKeyRunLimits" | "traceId" | "metadata" | "whenSettled" | "clientSignal" | "beforeStreamEnds"> {
  const auth = c.get("auth");
  const exchange = c.get("exchange");
  return {
    workspaceId: auth.workspaceId,
    logId: exchange.id,
    gatewayKeyId: auth.keyId,
    gatewayKeyRunLimits: auth.runLimits ?? null,
    traceId: exchange.facts.traceId,
    metadata: exchange.facts.metadata,
    whenSettled: (listener) => exchange.whenSettled(listener),
    clientSignal: c.req.raw.signal,
    beforeStreamEnds: c.env?.answerEnd ? () => c.env.answerEnd!.ended() : undefined,
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
    ...callerOf(c),
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
    ...callerOf(c),
  };
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

export { pathAfterV1 } from "../../operation/descriptor.ts";

/**
 * A proxied operation's route with the request log in front of it, so every request is logged,
 * those refused by the route's own checks included. With the operation it serves, the log reads
 * its answer and names it in telemetry by that operation from the start.
 */
export function loggedRoute<R extends RouteConfig>(route: R, deps: GatewayDeps, operation?: OperationDescriptor): R {
  const own = route.middleware === undefined ? [] : Array.isArray(route.middleware) ? route.middleware : [route.middleware];
  return { ...route, middleware: [requestLogger(route.operationId ?? route.path, deps, operation), ...own] };
}

/** The request log middleware of one operation (`logRequests` with the gateway's writer and limits). */
export function requestLogger(operationId: string, deps: GatewayDeps, operation?: OperationDescriptor): MiddlewareHandler<GatewayEnv> {
  return logRequests(requestLogOptions(operationId, deps, operation));
}

function requestLogOptions(operationId: string, deps: GatewayDeps, operation?: OperationDescriptor): RequestLogOptions {
  return { writer: deps.logWriter, inflight: deps.inflight, route: operationId, operation, maxBodyBytes: deps.config.GATEWAY_MAX_LOGGED_BODY_BYTES };
}

/**
 * Registers a proxied operation's route as one handler, the request's pipeline from its log to
 * its answer: the exchange opened, the request read and checked by a reader compiled once
 * (`routes/proxy/request-reader.ts`), the route's own handler, and the record settled with how the
 * app answered, errors included. Every check and error is the generated validators' own; what
 * goes is a middleware hop per part of the request and zod on the way that passes. A route
 * whose request has a part the reader does not handle is registered with its validators.
 */
export function pipelineRoute<R extends RouteConfig>(
  app: GatewayApp,
  route: R,
  deps: GatewayDeps,
  handler: RouteHandler<R, GatewayEnv>,
  options: { hook?: ValidationHook; operation?: OperationDescriptor } = {},
): void {
  const hook = options.hook ?? logHeadersHook;
  const read = compileRequestReader(route, hook);
  if (!read) {
    app.openapi(loggedRoute(route, deps, options.operation), handler, hook as never);
    return;
  }
  const open = exchangeOpener(requestLogOptions(route.operationId ?? route.path, deps, options.operation));
  app.on([route.method.toUpperCase()], [route.path.replaceAll(/\/{(.+?)}/g, "/:$1")], async function servePipeline(c) {
    const opened = open(c);
    let response: Response;
    let failure: Error | undefined;
    try {
      await read(c);
      // The reader added what the route's validators would have, so the handler reads it as typed.
      response = (await handler(c as never, async () => undefined)) as Response;
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
      response = await handleError(failure, c);
    }
    opened.settle(response.status, failure);
    return response;
  });
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
 * The proxy's answer as the route's response, its outcome handed to the request's log; an
 * expected failure goes to the app's error handler. The body is the upstream's (checked by the
 * core, relayed as it arrives), not an object built here, so it is typed as fitting any JSON
 * answer the route documents.
 */
export function proxyResponse(c: Context<GatewayEnv>, result: ProxyResult): Response & TypedResponse<never, 200, "json"> {
  const exchange = c.get("exchange");
  if (!result.ok) {
    const { error, outcome, refused } = result.error;
    exchange.handOver(outcome, null, refused);
    // On errors too: a request that failed before the cache looked was not served by it.
    c.header(CACHE_STATUS_HEADER, outcome.cacheStatus ?? "DISABLED");
    discardUnreadBody(c.req.raw);
    throw error;
  }
  const { response, outcome, ending } = result.value;
  exchange.handOver(outcome, ending);
  c.header(CACHE_STATUS_HEADER, outcome.cacheStatus ?? "DISABLED");
  const { status, headers, body } = response;
  // A 204 or 205 carries no body at all (the Response constructor refuses even an empty one).
  if (status === 204 || status === 205) return c.body(null, status as 200, headers) as unknown as Response & TypedResponse<never, 200, "json">;
  return c.body(body, status as 200, headers) as unknown as Response & TypedResponse<never, 200, "json">;
}
