import type { RouteConfig } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler, TypedResponse } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { Result, GatewayError } from "../errors.ts";
import { logRequests } from "../middleware/log-requests.ts";
import type { ProxyDeps, ProxyInput, ProxyResponse } from "./proxy-operation.ts";

/** The services the proxy core uses, picked from the gateway's. */
export function proxyDeps(deps: GatewayDeps): ProxyDeps {
  return {
    fetch: deps.fetch,
    checkCustomHost: deps.checkCustomHost,
    defaultTimeoutMs: deps.config.GATEWAY_REQUEST_TIMEOUT_MS,
    maxLoggedBodyBytes: deps.config.GATEWAY_MAX_LOGGED_BODY_BYTES,
    maxResponseBufferBytes: deps.config.GATEWAY_MAX_RESPONSE_BUFFER_BYTES,
    store: deps.store,
    controlPlane: deps.controlPlane,
    secrets: deps.secrets,
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
}

export function targetHeaders(headers: ProxyRouteHeaders): ProxyInput["headers"] {
  return {
    provider: headers["x-gateway-provider"],
    authorization: headers.Authorization,
    organization: headers["x-gateway-upstream-organization"],
    project: headers["x-gateway-upstream-project"],
    customHost: headers["x-gateway-custom-host"],
    virtualKey: headers["x-gateway-virtual-key"],
    config: headers["x-gateway-config"],
    timeout: headers["x-gateway-request-timeout"],
  };
}

/**
 * The proxy input of a route whose body is JSON: the body its validator parsed, with the
 * client's exact text (cached by the validator) for the log and the upstream.
 */
export async function jsonProxyInput(c: Context<GatewayEnv>, body: Record<string, unknown>, headers: ProxyRouteHeaders): Promise<ProxyInput> {
  return {
    body: { kind: "json", value: body, raw: await c.req.text() },
    headers: targetHeaders(headers),
    workspaceId: c.get("auth").workspaceId,
    clientSignal: c.req.raw.signal,
    log: c.get("requestLog"),
  };
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
 * The proxy's answer as the route's response; an expected failure goes to the app's error
 * handler. The body is the upstream's (checked by the core, relayed as it arrives), not an object
 * built here, so it is typed as fitting any JSON answer the route documents.
 */
export function proxyResponse(c: Context<GatewayEnv>, result: Result<ProxyResponse, GatewayError>): Response & TypedResponse<never, 200, "json"> {
  if (!result.ok) throw result.error;
  const { status, headers, body } = result.value;
  return c.body(body, status as 200, headers) as unknown as Response & TypedResponse<never, 200, "json">;
}
