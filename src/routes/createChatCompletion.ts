import { createChatCompletionRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { proxyChatCompletion } from "../core/chat-proxy.ts";
import { chatProxyDeps, chatTargetHeaders } from "../core/chat-proxy-deps.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

export function registerCreateChatCompletion(app: GatewayApp, deps: GatewayDeps): void {
  const proxyDeps = chatProxyDeps(deps);
  app.openapi(createChatCompletionRoute, async (c) => {
    const result = await proxyChatCompletion(
      {
        body: c.req.valid("json"),
        // Cached by the body validator: the exact text, for the log and the upstream.
        rawBody: await c.req.text(),
        headers: chatTargetHeaders(c.req.valid("header")),
        workspaceId: c.get("auth").workspaceId,
        clientSignal: c.req.raw.signal,
        log: c.get("requestLog"),
      },
      proxyDeps,
    );
    if (!result.ok) throw result.error;
    const { status, headers, body } = result.value;
    return c.body(body, status as 200, headers);
  }, logHeadersHook);
}
