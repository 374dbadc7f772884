import type { ControlPlaneCache } from "../control-plane/cache.ts";
import { PRODUCTION_LABEL, type PromptRecord, type PromptVersionRecord } from "../records/control-plane.ts";
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

/**
 * Which version of a prompt runs, in order: a `version` number, the version a `label` is on,
 * the version a config's `fallbackLabel` is on (when the prompt has that label), `production`.
 */
export interface VersionChoice {
  version?: number;
  label?: string;
  /** A config's `prompt_label`: used only when the prompt has it. */
  fallbackLabel?: string;
}

/** Fields of a prompt-completion body that are not overrides of the template's hyperparameters. */
const NOT_OVERRIDES = new Set(["variables"]);

/** The prompt of the workspace, from the control-plane cache; 404 naming `id` when there is none. */
export async function cachedPrompt(promptId: string, workspaceId: string, deps: PromptRequestDeps): Promise<Result<PromptRecord, GatewayError>> {
  const prompt = await deps.controlPlane.get("prompt", workspaceId, promptId, async () => (await deps.store.prompts.get(workspaceId, promptId)) ?? null);
  return prompt ? ok(prompt) : fail(new GatewayError("not_found", `No prompt ${promptId} in this workspace.`, { param: "id" }));
}

/** The version `choice` picks; 400 for a version and a label together, 404 naming the missing one. */
export function chooseVersion(prompt: PromptRecord, choice: VersionChoice): Result<PromptVersionRecord, GatewayError> {
  if (choice.version !== undefined && choice.label !== undefined) {
    return fail(new GatewayError("invalid_request", "Give version or label, not both.", { param: "label" }));
  }
  const byNumber = (number: number | undefined) => prompt.versions.find((candidate) => candidate.versionNumber === number);
  if (choice.version !== undefined) {
    const version = byNumber(choice.version);
    return version ? ok(version) : fail(new GatewayError("not_found", `Prompt ${prompt.id} has no version ${choice.version}.`, { param: "version" }));
  }
  if (choice.label !== undefined) {
    const version = byNumber(prompt.labels[choice.label]);
    return version ? ok(version) : fail(new GatewayError("not_found", `Prompt ${prompt.id} has no label "${choice.label}".`, { param: "label" }));
  }
  const label = choice.fallbackLabel !== undefined && Object.hasOwn(prompt.labels, choice.fallbackLabel) ? choice.fallbackLabel : PRODUCTION_LABEL;
  const version = byNumber(prompt.labels[label]) ?? byNumber(prompt.defaultVersion) ?? prompt.versions[0];
  if (!version) throw new Error(`Prompt ${prompt.id} has no versions`);
  return ok(version);
}

/**
 * Renders the chosen version of a prompt (`chooseVersion`) with the body's `variables`; every
 * other body field overrides the template's hyperparameters. The prompt comes from the
 * control-plane cache. Unknown prompt, version or label → 404; missing variables → 400 naming each.
 */
export async function renderPromptRequest(
  promptId: string,
  choice: VersionChoice,
  requestBody: Record<string, unknown>,
  workspaceId: string,
  deps: PromptRequestDeps,
): Promise<Result<RenderedPromptRequest, GatewayError>> {
  const refused = messagesRefused(requestBody);
  if (refused) return fail(refused);
  const prompt = await cachedPrompt(promptId, workspaceId, deps);
  if (!prompt.ok) return prompt;
  const version = chooseVersion(prompt.value, choice);
  if (!version.ok) return version;
  return renderVersion(prompt.value, version.value, requestBody);
}

/** Renders one version of a prompt with the body (see `renderPromptRequest`). */
export function renderVersion(prompt: PromptRecord, version: PromptVersionRecord, requestBody: Record<string, unknown>): Result<RenderedPromptRequest, GatewayError> {
  const refused = messagesRefused(requestBody);
  if (refused) return fail(refused);
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

/** A body may not bring its own messages: they come from the template. */
export function messagesRefused(requestBody: Record<string, unknown>): GatewayError | null {
  return "messages" in requestBody ? new GatewayError("invalid_request", "messages come from the prompt's template; send variables instead.", { param: "messages" }) : null;
}
