import { ConfigOverrideParamsSchema, type CreateExperimentRequest } from "../generated/schemas.gen.ts";
import { GatewayError } from "../errors.ts";
import { findProvider } from "../providers/catalogue.ts";
import type { ExperimentGuard, ExperimentVariant } from "../records/experiment.ts";
import type { ControlPlaneStore } from "../store/open-store.ts";

/** What an experiment's variants may not set in `params`: the variant's `model` field sets the model, the request or prompt its messages. */
const RESERVED_PARAMS = ["model", "messages"] as const;

/** The default chance of a false verdict, over every look. */
export const DEFAULT_ALPHA = 0.05;

/**
 * The variants as stored, after the checks the schema cannot make; throws a 400 GatewayError
 * naming the field (`variants.1.virtual_key`): unique names, a weight total above 0, params
 * that a config's `override_params` could hold (and not `model` or `messages`), a provider of
 * the catalogue (stored by its catalogue id), a virtual key of this workspace (never another's:
 * the experiment can only point where its workspace may go), at most one of `provider` and
 * `virtual_key`, at most one of `prompt_label` and `prompt_version`, and either only with a
 * prompt of the workspace that has that version or label.
 */
export async function checkedVariants(
  store: Pick<ControlPlaneStore, "virtualKeys" | "prompts">,
  workspaceId: string,
  variants: readonly ExperimentVariant[],
  promptId: string | null,
): Promise<ExperimentVariant[]> {
  const prompt = promptId === null ? null : await store.prompts.get(workspaceId, promptId);
  if (promptId !== null && !prompt) throw new GatewayError("invalid_request", `No prompt ${promptId} in this workspace.`, { param: "prompt_id" });
  const names = new Set<string>();
  const checked: ExperimentVariant[] = [];
  for (const [index, variant] of variants.entries()) {
    const at = (field: string) => `variants.${index}.${field}`;
    if (names.has(variant.name)) throw new GatewayError("invalid_request", `Variant name "${variant.name}" is used twice.`, { param: at("name") });
    names.add(variant.name);
    if (variant.prompt_label !== undefined && variant.prompt_version !== undefined) {
      throw new GatewayError("invalid_request", "Give prompt_label or prompt_version, not both.", { param: at("prompt_version") });
    }
    for (const field of ["prompt_label", "prompt_version"] as const) {
      if (variant[field] !== undefined && !prompt) throw new GatewayError("invalid_request", `${field} needs the experiment's prompt_id.`, { param: at(field) });
    }
    if (prompt && variant.prompt_version !== undefined && !prompt.versions.some((version) => version.versionNumber === variant.prompt_version)) {
      throw new GatewayError("invalid_request", `Prompt ${prompt.id} has no version ${variant.prompt_version}.`, { param: at("prompt_version") });
    }
    if (prompt && variant.prompt_label !== undefined && !Object.hasOwn(prompt.labels, variant.prompt_label)) {
      throw new GatewayError("invalid_request", `Prompt ${prompt.id} has no label "${variant.prompt_label}".`, { param: at("prompt_label") });
    }
    if (variant.provider !== undefined && variant.virtual_key !== undefined) {
      throw new GatewayError("invalid_request", "Give provider or virtual_key, not both.", { param: at("virtual_key") });
    }
    let provider = variant.provider;
    if (provider !== undefined) {
      const known = findProvider(provider);
      if (!known) throw new GatewayError("unknown_provider", `Unknown provider "${provider.slice(0, 100)}".`, { param: at("provider") });
      provider = known.id;
    }
    if (variant.virtual_key !== undefined && !(await store.virtualKeys.getBySlug(workspaceId, variant.virtual_key))) {
      throw new GatewayError("invalid_request", `No virtual key ${variant.virtual_key.slice(0, 200)} in this workspace.`, { param: at("virtual_key") });
    }
    if (variant.params !== undefined) checkParams(variant.params, at("params"));
    checked.push({ ...variant, ...(provider !== undefined && { provider }) });
  }
  const total = variants.reduce((sum, variant) => sum + variant.weight, 0);
  if (!(total > 0)) throw new GatewayError("invalid_request", "The variants' weights must total more than 0.", { param: "variants" });
  return checked;
}

function checkParams(params: Record<string, unknown>, param: string): void {
  for (const key of RESERVED_PARAMS) {
    if (Object.hasOwn(params, key)) throw new GatewayError("invalid_request", `params may not set ${key}.`, { param: `${param}.${key}` });
  }
  // The same rules as a config's override_params: a variant can never make a request body invalid.
  const parsed = ConfigOverrideParamsSchema.safeParse(params);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = [param, ...(issue?.path ?? []).map(String)].join(".");
    throw new GatewayError("invalid_request", `Invalid ${path}: ${issue?.message ?? "invalid"}`, { param: path });
  }
}

/** The fields of a new experiment, defaults filled in. */
export function experimentDefaults(body: CreateExperimentRequest) {
  return {
    description: body.description ?? null,
    assignment: body.assignment ?? ("user" as const),
    promptId: body.prompt_id ?? null,
    guards: body.guards ?? [],
    alpha: body.alpha ?? DEFAULT_ALPHA,
  };
}

/** The guards as stored: one per metric (400 naming `guards.<i>.metric` for a second). */
export function checkedGuards(guards: readonly ExperimentGuard[]): ExperimentGuard[] {
  const seen = new Set<string>();
  for (const [index, guard] of guards.entries()) {
    if (seen.has(guard.metric)) throw new GatewayError("invalid_request", `A second guard on ${guard.metric}: give one per metric.`, { param: `guards.${index}.metric` });
    seen.add(guard.metric);
  }
  return [...guards];
}
