import type { ControlPlaneCache } from "../control-plane/cache.ts";
import type { PromptRecord, PromptVersionRecord } from "../records/control-plane.ts";
import { defaultVersionOf } from "../control-plane/views.ts";
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { Store } from "../store/open-store.ts";
import { renderMessages } from "./template.ts";

export interface PromptRequestDeps {
  store: Pick<Store, "prompts">;
  controlPlane: ControlPlaneCache;
}

/** A prompt rendered into the chat completions body it runs. */
export interface RenderedPromptRequest {
  prompt: PromptRecord;
  version: PromptVersionRecord;
  body: Record<string, unknown> & { model: string };
}

/** Fields of a prompt-completion body that are not overrides of the template's hyperparameters. */
const NOT_OVERRIDES = new Set(["variables"]);

/**
 * Renders a prompt version (the default, or `versionNumber`) with the body's `variables`;
 * every other body field overrides the template's hyperparameters. The prompt comes from the
 * control-plane cache. Unknown prompt or version → 404; missing variables → 400 naming each.
 */
export async function renderPromptRequest(
  promptId: string,
  versionNumber: number | undefined,
  requestBody: Record<string, unknown>,
  workspaceId: string,
  deps: PromptRequestDeps,
): Promise<Result<RenderedPromptRequest, GatewayError>> {
  if ("messages" in requestBody) {
    return fail(new GatewayError("invalid_request", "messages come from the prompt's template; send variables instead.", { param: "messages" }));
  }
  const prompt = await deps.controlPlane.get("prompt", workspaceId, promptId, async () => (await deps.store.prompts.get(workspaceId, promptId)) ?? null);
  if (!prompt) return fail(new GatewayError("not_found", `No prompt ${promptId} in this workspace.`, { param: "id" }));
  const version = versionNumber === undefined ? defaultVersionOf(prompt) : prompt.versions.find((candidate) => candidate.versionNumber === versionNumber);
  if (!version) return fail(new GatewayError("not_found", `Prompt ${promptId} has no version ${versionNumber}.`, { param: "version" }));

  const variables = (requestBody.variables ?? {}) as Record<string, unknown>;
  const messages = renderMessages(version.messages, variables);
  if (!messages.ok) return messages;
  const overrides = Object.fromEntries(Object.entries(requestBody).filter(([key]) => !NOT_OVERRIDES.has(key)));
  const body = { model: version.model, ...version.hyperparameters, ...overrides, messages: messages.value };
  if (typeof body.model !== "string" || body.model.length === 0) {
    return fail(new GatewayError("invalid_request", "model must be a non-empty string.", { param: "model" }));
  }
  return ok({ prompt, version, body: body as RenderedPromptRequest["body"] });
}
