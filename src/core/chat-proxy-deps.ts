import type { HonoRequest } from "hono";
import type { GatewayDeps } from "../deps.ts";
import type { ChatProxyDeps, ChatProxyInput } from "./chat-proxy.ts";

/** The services the chat pipeline uses, picked from the gateway's. */
export function chatProxyDeps(deps: GatewayDeps): ChatProxyDeps {
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

/** The gateway headers that steer a chat request. */
export function chatTargetHeaders(request: HonoRequest): ChatProxyInput["headers"] {
  return {
    provider: request.header("x-gateway-provider"),
    authorization: request.header("authorization"),
    organization: request.header("x-gateway-upstream-organization"),
    project: request.header("x-gateway-upstream-project"),
    customHost: request.header("x-gateway-custom-host"),
    virtualKey: request.header("x-gateway-virtual-key"),
    config: request.header("x-gateway-config"),
    timeout: request.header("x-gateway-request-timeout"),
  };
}
