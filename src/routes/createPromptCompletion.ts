import { createPromptCompletionRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { proxyChatCompletion } from "../core/chat-proxy.ts";
import { chatProxyDeps, chatTargetHeaders } from "../core/chat-proxy-deps.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";
import { renderPromptRequest } from "../prompts/prompt-request.ts";

export function registerCreatePromptCompletion(app: GatewayApp, deps: GatewayDeps): void {
  const proxyDeps = chatProxyDeps(deps);
  app.openapi(createPromptCompletionRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { version } = c.req.valid("query");
    const workspaceId = c.get("auth").workspaceId;
    const log = c.get("requestLog");
    log.promptId = id;
    const rendered = await renderPromptRequest(id, version, c.req.valid("json"), workspaceId, deps);
    if (!rendered.ok) throw rendered.error;
    log.promptVersion = rendered.value.version.versionNumber;

    // The prompt's provider or virtual key applies unless the request names its own.
    const headers = chatTargetHeaders(c.req.valid("header"));
    const stored = rendered.value.version;
    if (!headers.provider && !headers.virtualKey) {
      headers.provider = stored.virtualKey ? `@${stored.virtualKey}` : (stored.provider ?? undefined);
    }
    const result = await proxyChatCompletion(
      { body: rendered.value.body, headers, workspaceId, clientSignal: c.req.raw.signal, log },
      proxyDeps,
    );
    if (!result.ok) throw result.error;
    const { status, headers: responseHeaders, body } = result.value;
    return c.body(body, status as 200, responseHeaders);
  }, logHeadersHook);
}
