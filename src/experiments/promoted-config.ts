import type { GatewayConfig } from "../generated/schemas.gen.ts";
import type { ExperimentVariant } from "../records/experiment.ts";

/** Where a level of a config sends its requests: what a variant's virtual key or provider replaces. */
const DESTINATION = ["provider", "api_key", "custom_host", "virtual_key", "upstream_organization", "upstream_project"] as const;

type Level = { override_params?: Record<string, unknown>; [key: string]: unknown };

/**
 * The config a promoted variant implies: what the variant did to every request through it
 * (`pipeline/experiment-variant.ts`), written into the config itself, which no longer names the
 * experiment. The variant's model and params go into the root's `override_params` and leave
 * every target's (so that the root's win, as the variant's did); its virtual key or provider
 * becomes the root's destination, every target's own provider, key, host and virtual key removed
 * so that they inherit it. Pure; the input is not changed.
 */
export function promotedConfig(config: GatewayConfig, variant: ExperimentVariant): GatewayConfig {
  const next = structuredClone(config) as GatewayConfig & Level;
  delete next.experiment;
  const overrides: Record<string, unknown> = { ...variant.params, ...(variant.model !== undefined && { model: variant.model }) };
  const keys = Object.keys(overrides);
  const destination = variant.virtual_key !== undefined || variant.provider !== undefined;
  const levels: Level[] = [];
  for (const target of next.targets ?? []) {
    levels.push(target as Level);
    for (const nested of target.targets ?? []) levels.push(nested as Level);
  }
  if (keys.length > 0) {
    next.override_params = { ...next.override_params, ...overrides };
    for (const level of levels) {
      if (!level.override_params) continue;
      for (const key of keys) delete level.override_params[key];
      if (Object.keys(level.override_params).length === 0) delete level.override_params;
    }
  }
  if (destination) {
    for (const level of [next as Level, ...levels]) for (const field of DESTINATION) delete level[field];
    if (variant.virtual_key !== undefined) next.virtual_key = variant.virtual_key;
    if (variant.provider !== undefined) next.provider = variant.provider;
  }
  return next;
}
