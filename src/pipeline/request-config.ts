import type { ControlPlaneCache } from "../control-plane/cache.ts";
import type { ConfigRecord } from "../records/control-plane.ts";
import { parseGatewayConfig, type GatewayConfig } from "./config-body.ts";
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import { MAX_REQUEST_TIMEOUT_MS } from "../config.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import type { RequestBody } from "../operation/request-body.ts";
import type { Store } from "../store/open-store.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import { openConfigSecrets, type StoredConfig } from "../records/config-secrets.ts";
import { buildRoutePlan, type RouteNode, type TargetSettings } from "./routing-plan.ts";
import { storedRunLimits } from "../control-plane/run-limit-fields.ts";

import { CONFIG_HEADER } from "../operation/field-overrides.ts";

export { CONFIG_HEADER };

/** A request's config: the settings guardrails and defaults read, and its routing plan. */
export interface RequestConfig {
  /** The root merged with the first target: guardrails, overrides and timeout of a single-target config. */
  settings: TargetSettings;
  /** The root's `override_params`: applied before targets are chosen; each target adds its own. */
  rootOverrides?: Record<string, unknown>;
  plan: RouteNode;
  /** The config's `prompt_label`: the label prompt runs through it render, when they name none. */
  promptLabel?: string;
  /** The experiment the config's requests join (`experiment`). */
  experimentId?: string;
}

export interface ConfigSourceDeps {
  store: Pick<Store, "configs">;
  controlPlane: ControlPlaneCache;
  secrets: SecretBox;
}

/**
 * The settings a config gives for what is decided once per request (guardrails): root keys,
 * overridden by the first target's when the config has targets. Each target's own settings are
 * in the plan.
 */
function effectiveSettings(config: GatewayConfig): TargetSettings {
  const target = config.targets?.[0] ?? {};
  const pick = <K extends keyof typeof target & keyof GatewayConfig>(key: K) => target[key] ?? config[key];
  const overrides = { ...config.override_params, ...target.override_params };
  return withoutUndefined({
    provider: pick("provider"),
    apiKey: pick("api_key"),
    organization: pick("upstream_organization"),
    project: pick("upstream_project"),
    customHost: pick("custom_host"),
    virtualKey: pick("virtual_key"),
    // Absent rather than empty, so a config without overrides leaves the client's body untouched.
    overrideParams: Object.keys(overrides).length > 0 ? overrides : undefined,
    inputGuardrails: pick("input_guardrails"),
    outputGuardrails: pick("output_guardrails"),
    requestTimeout: pick("request_timeout"),
    cache: config.cache,
    runLimits: config.run_limits ? storedRunLimits(config.run_limits) : undefined,
  });
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}

/**
 * The config of a request: `x-gateway-config` as a slug (latest version) or inline JSON;
 * without the header, the workspace's default config if it has one. Reads come from the
 * control-plane cache. Null when no config applies.
 */
export async function loadRequestConfig(
  header: string | undefined,
  workspaceId: string,
  deps: ConfigSourceDeps,
): Promise<Result<RequestConfig | null, GatewayError>> {
  const value = header?.trim();
  if (value && value.startsWith("{")) return inlineConfig(value);
  if (value) {
    const settings = await deps.controlPlane.get("config", workspaceId, value, async () => {
      const record = await deps.store.configs.getBySlug(workspaceId, value);
      return record ? storedSettings(record, `Config "${record.slug}"`, deps.secrets) : null;
    });
    if (!settings) {
      return fail(new GatewayError("invalid_request", `No config "${value.slice(0, 200)}" in this workspace.`, { param: CONFIG_HEADER }));
    }
    return settings;
  }
  const fallback = await deps.controlPlane.get("default-config", workspaceId, "", async () => {
    const configs = await deps.store.configs.list(workspaceId);
    const chosen = configs.find((config) => config.isDefault);
    return chosen ? storedSettings(chosen, `The default config "${chosen.slug}"`, deps.secrets) : null;
  });
  return fallback ?? ok(null);
}

/** Distinct inline configs kept parsed; past this many, the oldest is parsed again when next sent. */
const INLINE_CONFIGS_KEPT = 500;
const inlineConfigs = new Map<string, Result<RequestConfig | null, GatewayError>>();

/**
 * An inline config, parsed and planned once per distinct text: a client sends the same config
 * with every request, and its meaning depends on the text alone (a stored config's on the
 * control-plane cache instead).
 */
function inlineConfig(text: string): Result<RequestConfig | null, GatewayError> {
  const known = inlineConfigs.get(text);
  if (known) return known;
  const parsed = parseGatewayConfig(text, CONFIG_HEADER);
  const config = parsed.ok ? requestConfig(parsed.value.value, undefined) : parsed;
  if (inlineConfigs.size >= INLINE_CONFIGS_KEPT) inlineConfigs.delete(inlineConfigs.keys().next().value!);
  inlineConfigs.set(text, config);
  return config;
}

/**
 * The settings of a stored config, its sealed upstream keys opened (kept in memory only). A key
 * that does not open is a 400 naming the config and the key's place, cached like the settings.
 */
function storedSettings(record: ConfigRecord, name: string, secrets: SecretBox): Result<RequestConfig, GatewayError> {
  const opened = openConfigSecrets(JSON.parse(record.latest.config) as StoredConfig, secrets);
  if (opened.ok) return requestConfig(opened.value, { slug: record.slug, id: record.id, version: record.latest.versionNumber });
  return fail(
    new GatewayError(
      "invalid_request",
      `${name} holds a ${opened.error} that cannot be decrypted (it was altered, or sealed under another GATEWAY_ENCRYPTION_KEY): save the config again with the key.`,
      { param: CONFIG_HEADER },
    ),
  );
}

/** A parsed config's settings and plan; a stored config built when it was saved, so this fails only for an inline one. */
function requestConfig(config: GatewayConfig, stored: { slug: string; id: string; version: number } | undefined): Result<RequestConfig, GatewayError> {
  const plan = buildRoutePlan(config, stored?.slug, CONFIG_HEADER);
  if (!plan.ok) return plan;
  const settings = effectiveSettings(config);
  return ok({
    settings: stored ? { ...settings, storedAs: stored.slug, storedConfig: { id: stored.id, version: stored.version } } : settings,
    rootOverrides: config.override_params,
    plan: plan.value,
    ...(config.prompt_label !== undefined && { promptLabel: config.prompt_label }),
    ...(config.experiment !== undefined && { experimentId: config.experiment }),
  });
}

/**
 * The config's `override_params` win over a JSON body's own fields, once the operation's rule
 * passed them (an operation without one refuses them, 400); other bodies pass as they are.
 */
export function withOverrides(
  body: RequestBody,
  overrides: Record<string, unknown> | undefined,
  operation: Pick<OperationDescriptor, "id" | "overrides">,
): Result<RequestBody, GatewayError> {
  if (!overrides || body.kind !== "json") return ok(body);
  const error = operation.overrides
    ? operation.overrides(overrides)
    : new GatewayError("invalid_request", `The config sets override_params, which ${operation.id} does not take: remove them from the config for this operation.`, { param: CONFIG_HEADER });
  return error ? fail(error) : ok({ kind: "json", value: { ...body.value, ...overrides } });
}

/**
 * The upstream timeout of one request: the `x-gateway-request-timeout` header (already held by
 * the route's generated validator to decimal digits from 1 to the document's maximum, which is
 * `MAX_REQUEST_TIMEOUT_MS`), else the config's `request_timeout`, else the gateway's default.
 * A config stored before the bound existed is held to it too, since a timer given 2^31 ms or
 * more fires at once.
 */
export function requestTimeout(header: number | undefined, fallback: number): number {
  return header ?? Math.min(fallback, MAX_REQUEST_TIMEOUT_MS);
}
