import type { z } from "@hono/zod-openapi";
import type { GatewayDeps } from "../deps.ts";
import type { createChatCompletionRoute } from "../generated/routes.gen.ts";
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

/** The headers of a chat route (completion or prompt run), as its generated validator passes them. */
export type ChatRouteHeaders = z.output<typeof createChatCompletionRoute.request.headers>;

/** The gateway headers that steer a chat request. */
export function chatTargetHeaders(headers: ChatRouteHeaders): ChatProxyInput["headers"] {
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
