import { createPromptCompletionRoute } from "../generated/routes.gen.ts";
import { proxiedRoute, validatedPart } from "./proxy/proxied-route.ts";
import { ok } from "../errors.ts";
import { joinExperiment } from "../experiments/experiment-join.ts";
import { endUserOf } from "../pipeline/proxy-operation.ts";
import { loadRequestConfig } from "../pipeline/request-config.ts";
import { renderPromptRequest, type VersionChoice } from "../prompts/prompt-request.ts";
import { chatCompletionOperation } from "./createChatCompletion.ts";

/**
 * A prompt run is a chat completion whose body the stored prompt renders from the request's
 * variables: served, cached, judged and logged as chat, with the prompt's id and version in the
 * log. The version is the one asked for, or the one a label names (the request's, else its
 * config's `prompt_label`, else `production`), unless the config names a running experiment of
 * this prompt whose variant chooses it: so the experiment is joined here, before rendering, and
 * handed to the pipeline.
 */
export const registerCreatePromptCompletion = proxiedRoute(createPromptCompletionRoute, chatCompletionOperation, {
  async prepare(c, input, deps) {
    const { id } = validatedPart<{ id: string }>(c, "param");
    const { version, label } = validatedPart<{ version?: number; label?: string }>(c, "query");
    const requestBody = input.body.kind === "json" ? input.body.value : {};
    const exchange = c.get("exchange");
    const refuse = (error: Error): never => {
      exchange.handOver({ ...exchange.baseOutcome(), promptId: id });
      throw error;
    };
    // A config that fails is refused by the pipeline, with its own error.
    const config = await loadRequestConfig(input.headers.config, input.workspaceId, deps);
    const joined = config.ok
      ? await joinExperiment(
          config.value?.experimentId,
          {
            workspaceId: input.workspaceId,
            promptId: id,
            pinnedPrompt: version !== undefined || label !== undefined,
            facts: { endUser: endUserOf(requestBody, input.metadata), traceId: input.traceId ?? null, logId: input.logId ?? exchange.id },
          },
          deps,
        )
      : ok(null);
    if (!joined.ok) return refuse(joined.error);
    const variant = joined.value?.variant;
    const choice: VersionChoice =
      variant?.prompt_version !== undefined
        ? { version: variant.prompt_version }
        : variant?.prompt_label !== undefined
          ? { label: variant.prompt_label }
          : { version, label, fallbackLabel: config.ok ? config.value?.promptLabel : undefined };
    const rendered = await renderPromptRequest(id, choice, requestBody, input.workspaceId, deps);
    if (!rendered.ok) return refuse(rendered.error);
    // The prompt's provider or virtual key applies unless the request, or its variant, names its own.
    const stored = rendered.value.version;
    const headers = { ...input.headers };
    const variantTarget = variant?.virtual_key !== undefined || variant?.provider !== undefined;
    if (!headers.provider && !headers.virtualKey && !variantTarget) headers.provider = stored.virtualKey ? `@${stored.virtualKey}` : (stored.provider ?? undefined);
    return { ...input, body: { kind: "json", value: rendered.value.body }, headers, prompt: { id, version: stored.versionNumber }, experiment: joined.value };
  },
});
