import { createChatCompletionRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { proxyChatCompletion } from "../core/chat-proxy.ts";

export function registerCreateChatCompletion(app: GatewayApp, deps: GatewayDeps): void {
  const proxyDeps = { fetch: deps.fetch, checkCustomHost: deps.checkCustomHost, defaultTimeoutMs: deps.config.GATEWAY_REQUEST_TIMEOUT_MS };
  app.openapi(createChatCompletionRoute, async (c) => {
    const result = await proxyChatCompletion(
      {
        body: c.req.valid("json"),
        headers: {
          provider: c.req.header("x-gateway-provider"),
          authorization: c.req.header("authorization"),
          organization: c.req.header("x-gateway-upstream-organization"),
          project: c.req.header("x-gateway-upstream-project"),
          customHost: c.req.header("x-gateway-custom-host"),
          timeout: c.req.header("x-gateway-request-timeout"),
        },
        clientSignal: c.req.raw.signal,
        log: c.get("requestLog"),
      },
      proxyDeps,
    );
    if (!result.ok) throw result.error;
    const { status, headers, body } = result.value;
    return c.body(body, status as 200, headers);
  });
}
