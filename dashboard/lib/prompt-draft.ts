import { ApiError } from "./api.ts";
import { isVirtualKey } from "./run.ts";
import type { PromptMessage, PromptVersion } from "./types.ts";

/** The template being edited: what a saved version holds, the target as `provider` or `@<virtual key>`. */
export interface Draft {
  messages: PromptMessage[];
  model: string;
  target: string;
  parameters: string;
}

/** A saved version, ready to edit. */
export function draftOf(version: PromptVersion): Draft {
  return {
    messages: version.messages.map((message) => ({ ...message })),
    model: version.model,
    target: version.virtual_key ? `@${version.virtual_key}` : (version.provider ?? ""),
    parameters: JSON.stringify(version.hyperparameters, null, 2),
  };
}

/** Whether two drafts would save the same version (parameters compared as JSON values). */
export const sameDraft = (a: Draft, b: Draft): boolean => JSON.stringify(a.messages) === JSON.stringify(b.messages) && a.model === b.model && a.target === b.target && parsedOrText(a.parameters) === parsedOrText(b.parameters);

function parsedOrText(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}

/** The parameters as an object; an error naming `hyperparameters`, before anything is sent, when they are not one. */
export function parameters(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = text.trim() ? JSON.parse(text) : {};
  } catch (failure) {
    throw new ApiError(`Parameters are not valid JSON: ${(failure as Error).message}`, 0, null, "hyperparameters");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ApiError("Parameters must be a JSON object.", 0, null, "hyperparameters");
  return value as Record<string, unknown>;
}

/** The `PUT /v1/prompts/{id}` body that saves a draft as a new version (not published). */
export function saveBody(draft: Draft): Record<string, unknown> {
  const target = draft.target.trim();
  return {
    messages: draft.messages,
    model: draft.model,
    hyperparameters: parameters(draft.parameters),
    ...(isVirtualKey(target) ? { virtual_key: target.slice(1), provider: null } : { provider: target, virtual_key: null }),
  };
}
