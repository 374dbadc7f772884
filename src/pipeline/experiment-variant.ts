import type { ExperimentVariant } from "../records/experiment.ts";
import type { RequestConfig } from "./request-config.ts";
import type { RouteNode, TargetSettings } from "./routing-plan.ts";

/**
 * A config with a variant's change applied, made once per (config, variant) and kept while both
 * are cached: a request in an experiment pays a map lookup, not a rebuilt plan.
 */
const applied = new WeakMap<RequestConfig, WeakMap<ExperimentVariant, RequestConfig>>();

export function configWithVariant(config: RequestConfig, variant: ExperimentVariant): RequestConfig {
  let byVariant = applied.get(config);
  if (!byVariant) {
    byVariant = new WeakMap();
    applied.set(config, byVariant);
  }
  let made = byVariant.get(variant);
  if (!made) {
    made = applyVariant(config, variant);
    byVariant.set(variant, made);
  }
  return made;
}

/** A variant's body fields: its params, and its model. */
function variantOverrides(variant: ExperimentVariant): Record<string, unknown> {
  return { ...variant.params, ...(variant.model !== undefined && { model: variant.model }) };
}

/**
 * The config as the variant changes it: its model and params win over every level's
 * `override_params` (the root's, applied to the body, and each target's); its virtual key or
 * provider becomes every target's destination, in place of the provider, key and host the target
 * had (so no credential goes to another provider's host). Nothing else of the config changes.
 */
function applyVariant(config: RequestConfig, variant: ExperimentVariant): RequestConfig {
  const overrides = variantOverrides(variant);
  const hasOverrides = Object.keys(overrides).length > 0;
  const destination = variant.virtual_key !== undefined || variant.provider !== undefined;
  if (!hasOverrides && !destination) return config;
  const settingsOf = (settings: TargetSettings): TargetSettings => {
    const changed: TargetSettings = { ...settings };
    if (hasOverrides) changed.overrideParams = { ...settings.overrideParams, ...overrides };
    if (destination) {
      for (const key of ["provider", "apiKey", "customHost", "virtualKey", "organization", "project"] as const) delete changed[key];
      if (variant.virtual_key !== undefined) changed.virtualKey = variant.virtual_key;
      if (variant.provider !== undefined) changed.provider = variant.provider;
    }
    return changed;
  };
  const nodeOf = (node: RouteNode): RouteNode => {
    if ("leaf" in node) return { leaf: { ...node.leaf, settings: settingsOf(node.leaf.settings) } };
    return { group: { ...node.group, members: node.group.members.map((member) => ({ ...member, node: nodeOf(member.node) })) } };
  };
  return {
    ...config,
    settings: settingsOf(config.settings),
    rootOverrides: hasOverrides ? { ...config.rootOverrides, ...overrides } : config.rootOverrides,
    plan: nodeOf(config.plan),
  };
}
