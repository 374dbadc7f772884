import { createPromptCompletionRoute } from "../generated/routes.gen.ts";
import { proxiedRoute, validatedPart } from "./proxied-route.ts";
import { loadRequestConfig } from "../pipeline/request-config.ts";
import { renderPromptRequest } from "../prompts/prompt-request.ts";
import { chatCompletionOperation } from "./createChatCompletion.ts";

/**
 * A prompt run is a chat completion whose body the stored prompt renders from the request's
 * variables: served, cached, judged and logged as chat, with the prompt's id and version in the
 * log. The version is the one asked for, or the one a label names (the request's, else its
 * config's `prompt_label`, else `production`).
 */
export const registerCreatePromptCompletion = proxiedRoute(createPromptCompletionRoute, chatCompletionOperation, {
  async prepare(c, input, deps) {
    const { id } = validatedPart<{ id: string }>(c, "param");
    const { version, label } = validatedPart<{ version?: number; label?: string }>(c, "query");
    // The config's label applies to a run that names none; a config that fails is refused by the pipeline.
    const config = await loadRequestConfig(input.headers.config, input.workspaceId, deps);
    const fallbackLabel = config.ok ? config.value?.promptLabel : undefined;
    const variables = input.body.kind === "json" ? input.body.value : {};
    const rendered = await renderPromptRequest(id, { version, label, fallbackLabel }, variables, input.workspaceId, deps);
    if (!rendered.ok) {
      const exchange = c.get("exchange");
      exchange.handOver({ ...exchange.baseOutcome(), promptId: id });
      throw rendered.error;
    }
    // The prompt's provider or virtual key applies unless the request names its own.
    const stored = rendered.value.version;
    const headers = { ...input.headers };
    if (!headers.provider && !headers.virtualKey) headers.provider = stored.virtualKey ? `@${stored.virtualKey}` : (stored.provider ?? undefined);
    return { ...input, body: { kind: "json", value: rendered.value.body }, headers, prompt: { id, version: stored.versionNumber } };
  },
});
