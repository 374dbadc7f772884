import type { Store } from "../store/open-store.ts";
import { uuidv4 } from "../lib/ids.ts";
import { GatewayError } from "../errors.ts";
import { templateVariables, validateTemplate } from "./template.ts";
import { findProvider } from "../providers/catalogue.ts";
import type { NewPromptVersion } from "../store/control-plane-repositories.ts";
import type { PromptMessage } from "../records/control-plane.ts";

/** A prompt runs through exactly one of a catalogue provider or a virtual key; otherwise a 400 naming the field. */
export function exactlyOneTarget(provider: string | null, virtualKey: string | null): { provider: string | null; virtualKey: string | null } {
  if (provider !== null && virtualKey !== null) {
    throw new GatewayError("invalid_request", "Give provider or virtual_key, not both (set the other to null to switch).", { param: "virtual_key" });
  }
  if (provider === null && virtualKey === null) {
    throw new GatewayError("invalid_request", "Give provider (a catalogue provider) or virtual_key (a virtual key slug).", { param: "provider" });
  }
  return { provider, virtualKey };
}

/** Hyperparameters may not replace what the prompt itself sets. */
const RESERVED_HYPERPARAMETERS = ["model", "messages"] as const;

/**
 * A prompt version as stored, after its checks: the provider is in the catalogue (stored by
 * its catalogue id), the virtual key exists in the workspace, every template parses, and the
 * hyperparameters leave `model` and `messages` to the prompt. `checkTarget: false` skips the
 * provider and virtual-key checks (for values kept from an earlier version). Throws a 400
 * GatewayError naming the field.
 */
export async function promptVersion(
  deps: { store: Store },
  workspaceId: string,
  input: Omit<NewPromptVersion, "versionId" | "variables">,
  checkTarget: { provider: boolean; virtualKey: boolean } = { provider: true, virtualKey: true },
): Promise<NewPromptVersion> {
  let provider = input.provider;
  if (provider !== null && checkTarget.provider) {
    const known = findProvider(provider);
    if (!known) throw new GatewayError("unknown_provider", `Unknown provider "${provider.slice(0, 100)}".`, { param: "provider" });
    provider = known.id;
  }
  if (input.virtualKey !== null && checkTarget.virtualKey && !(await deps.store.virtualKeys.getBySlug(workspaceId, input.virtualKey))) {
    throw new GatewayError("invalid_request", `No virtual key ${input.virtualKey.slice(0, 200)} in this workspace.`, { param: "virtual_key" });
  }
  for (const key of RESERVED_HYPERPARAMETERS) {
    if (Object.hasOwn(input.hyperparameters, key)) {
      throw new GatewayError("invalid_request", `hyperparameters may not set ${key}: the prompt sets it.`, { param: `hyperparameters.${key}` });
    }
  }
  const messages: PromptMessage[] = input.messages.map((message) => ({ role: message.role, content: message.content }));
  const valid = validateTemplate(messages);
  if (!valid.ok) throw valid.error;
  return { ...input, provider, messages, versionId: uuidv4(), variables: templateVariables(messages) };
}
