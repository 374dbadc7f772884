import { createPromptCompletionRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { proxyOperation } from "../pipeline/proxy-operation.ts";
import { loadRequestConfig } from "../pipeline/request-config.ts";
import { callerOf, pipelineRoute, proxyDeps, proxyResponse, targetHeaders } from "./proxy/proxy-route.ts";
import { renderPromptRequest } from "../prompts/prompt-request.ts";
import { chatCompletionOperation } from "./createChatCompletion.ts";

/** A prompt run is a chat completion whose body the stored prompt renders. */
export function registerCreatePromptCompletion(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  pipelineRoute(app, createPromptCompletionRoute, deps, async (c) => {
    const { id } = c.req.valid("param");
    const { version, label } = c.req.valid("query");
    const workspaceId = c.get("auth").workspaceId;
    const headers = targetHeaders(c.req.valid("header"), (name) => c.req.header(name));
    // The config's label applies to a run that names none; a config that fails is refused by the pipeline below.
    const config = await loadRequestConfig(headers.config, workspaceId, deps);
    const fallbackLabel = config.ok ? config.value?.promptLabel : undefined;
    const rendered = await renderPromptRequest(id, { version, label, fallbackLabel }, c.req.valid("json"), workspaceId, deps);
    if (!rendered.ok) {
      const exchange = c.get("exchange");
      exchange.handOver({ ...exchange.baseOutcome(), promptId: id });
      throw rendered.error;
    }

    // The prompt's provider or virtual key applies unless the request names its own.
    const stored = rendered.value.version;
    if (!headers.provider && !headers.virtualKey) {
      headers.provider = stored.virtualKey ? `@${stored.virtualKey}` : (stored.provider ?? undefined);
    }
    const prompt = { id, version: rendered.value.version.versionNumber };
    const input = { body: { kind: "json" as const, value: rendered.value.body }, headers, prompt, ...callerOf(c) };
    return proxyResponse(c, await proxyOperation(chatCompletionOperation, input, core));
  }, { operation: chatCompletionOperation });
}
