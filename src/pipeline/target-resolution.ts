import { fail, GatewayError, ok, type Result } from "../errors.ts";
import { findProvider } from "../providers/catalogue.ts";
import type { Provider } from "../providers/provider.ts";
import { CONFIG_HEADER, type RequestConfig } from "./request-config.ts";
import type { Target } from "../operation/target.ts";
import type { RouteFacts } from "./route-conditions.ts";
import { planLeaves, type RouteLeaf, type TargetSettings } from "./routing-plan.ts";
import { ANSWER_AS_IS, type Candidate } from "./routing-loop.ts";
import { loadVirtualKey, type VirtualKeyDeps } from "./virtual-key-lookup.ts";
import { openCredentialFields } from "../control-plane/credential-fields.ts";
import { customHostBaseUrl } from "./custom-host-base.ts";

export interface TargetHeaders {
  /** Reads a request header by name: the provider's credential fields (`Provider.credentialFields`). */
  header?: (name: string) => string | undefined;
  provider?: string;
  authorization?: string;
  organization?: string;
  project?: string;
  customHost?: string;
  virtualKey?: string;
}

export interface TargetRequest {
  /** The request's model, when its body names one. */
  model: string | null;
  headers: TargetHeaders;
  /** The settings of one target of the request's config, if one applies. */
  config: TargetSettings | null;
  workspaceId: string;
}

export interface CandidatesRequest extends Omit<TargetRequest, "config"> {
  config: RequestConfig | null;
  /** What a conditional strategy's queries read. */
  facts: RouteFacts;
}

export interface TargetResolverDeps extends VirtualKeyDeps {
  checkCustomHost: (rawUrl: string, field?: string) => Promise<Result<Readonly<URL>, GatewayError>>;
}

/** What one source says about the target; later layers win field by field. */
interface Layer {
  provider?: string;
  apiKey?: string;
  organization?: string;
  project?: string;
  customHost?: string;
  /** Stored credential fields (a virtual key's), opened; they win over the request's header fields. */
  fields?: Readonly<Record<string, string>>;
  virtualKeyId?: string;
  /**
   * Set when the layer's `apiKey` (or `fields`) is a stored credential (a virtual key, a stored config): it
   * names the credential for errors. A stored credential goes only to the host stored with it.
   */
  storedCredential?: string;
  /** Where the layer's custom host came from, for errors (a header or a config). */
  customHostParam?: string;
}

/**
 * Splits the model form `@<provider or virtual key slug>/<model>`. Null for a plain model id.
 */
export function splitProviderModel(model: string): { provider: string; model: string } | null {
  if (!model.startsWith("@")) return null;
  const slash = model.indexOf("/");
  if (slash <= 1 || slash === model.length - 1) return null;
  return { provider: model.slice(1, slash), model: model.slice(slash + 1) };
}

function bearer(authorization: string | undefined): string | undefined {
  const match = authorization ? /^Bearer\s+(.+)$/i.exec(authorization.trim()) : null;
  return match?.[1]?.trim() || undefined;
}

const trimmed = (value: string | undefined): string | undefined => value?.trim() || undefined;

const NO_CONFIG_LEAF: RouteLeaf = { path: "", settings: {}, retry: { attempts: 0, statuses: new Set() }, breaker: null };

/**
 * The request's ordered list of candidate targets: the config's plan for this request
 * (`planLeaves`), each leaf resolved with the request's headers and virtual keys (see
 * `resolveTarget`); without a config, the one target the request names. A leaf's
 * `override_params.model` is the model it resolves. Any leaf that does not resolve fails the
 * request: a config that names a missing virtual key is an error to fix, not a target to skip.
 */
export async function resolveCandidates(request: CandidatesRequest, deps: TargetResolverDeps): Promise<Result<Candidate[], GatewayError>> {
  const planned = request.config ? planLeaves(request.config.plan, request.facts) : ok([{ ...NO_CONFIG_LEAF, fallback: ANSWER_AS_IS }]);
  if (!planned.ok) return planned;
  const candidates: Candidate[] = [];
  for (const [index, leaf] of planned.value.entries()) {
    const override = leaf.settings.overrideParams?.model;
    const model = typeof override === "string" ? override : request.model;
    const target = await resolveTarget({ ...request, model, config: request.config ? leaf.settings : null }, deps);
    if (!target.ok) return target;
    candidates.push({ index, path: leaf.path, target: target.value, settings: leaf.settings, fallback: leaf.fallback, retry: leaf.retry, breaker: leaf.breaker });
  }
  return ok(candidates);
}

/**
 * Resolves provider, base URL, credentials and model for a request from layers, each
 * winning over the ones before it, field by field:
 * 1. `Authorization: Bearer …` — the upstream key only, used when nothing else gives one
 *    (OpenAI clients always send this header, so it must not outrank a chosen virtual key);
 * 2. the virtual key a config names; 3. the config's own keys;
 * 4. the virtual key the request names (`@<slug>/<model>`, `x-gateway-provider: @<slug>`,
 *    `x-gateway-virtual-key`); 5. the request's headers.
 * Credentials of a layer whose provider differs from the winning provider are not used, so a
 * key is never sent to another provider's upstream.
 */
export async function resolveTarget(request: TargetRequest, deps: TargetResolverDeps): Promise<Result<Target, GatewayError>> {
  const { headers, config } = request;
  const fromModel = request.model === null ? null : splitProviderModel(request.model);
  if (request.model?.startsWith("@") && !fromModel) {
    return fail(new GatewayError("invalid_request", "A model starting with @ must have the form @<provider>/<model>.", { param: "model" }));
  }
  const selection = selectFromRequest(fromModel?.provider, headers);

  const layers: Layer[] = [{ apiKey: bearer(headers.authorization) }];
  if (config?.virtualKey) {
    const layer = await virtualKeyLayer(config.virtualKey, request.workspaceId, deps, CONFIG_HEADER);
    if (!layer.ok) return layer;
    layers.push(layer.value);
  }
  if (config) {
    layers.push({
      provider: config.provider,
      apiKey: config.apiKey,
      organization: config.organization,
      project: config.project,
      customHost: config.customHost,
      storedCredential: config.storedAs ? `config "${config.storedAs}"` : undefined,
      customHostParam: CONFIG_HEADER,
    });
  }
  if (selection.virtualKey) {
    const layer = await virtualKeyLayer(selection.virtualKey.slug, request.workspaceId, deps, selection.virtualKey.param);
    if (!layer.ok) return layer;
    layers.push(layer.value);
  }
  layers.push({
    provider: selection.provider?.name,
    // OpenAI's own `OpenAI-Organization` and `OpenAI-Project` say the same as the gateway's headers.
    organization: trimmed(headers.organization ?? headers.header?.("openai-organization")),
    project: trimmed(headers.project ?? headers.header?.("openai-project")),
    customHost: trimmed(headers.customHost),
    customHostParam: "x-gateway-custom-host",
  });

  const merged = mergeLayers(layers);
  const misdirected = hostOutsideStoredCredential(merged);
  if (misdirected) return fail(misdirected);
  if (!merged.provider) {
    return fail(
      new GatewayError("unknown_provider", "No provider: send x-gateway-provider, a config or a virtual key, or use a model of the form @<provider>/<model>.", {
        param: "x-gateway-provider",
      }),
    );
  }
  const provider = findProvider(merged.provider);
  if (!provider) {
    const param = selection.provider?.name === merged.provider ? selection.provider.param : CONFIG_HEADER;
    return fail(new GatewayError("unknown_provider", `Unknown provider "${merged.provider.slice(0, 100)}".`, { param }));
  }

  const headerFields = credentialFields(provider, headers);
  if (!headerFields.ok) return headerFields;
  const fields: Readonly<Record<string, string>> = { ...headerFields.value, ...merged.fields };
  let baseUrl = provider.baseUrlFrom?.(fields) ?? provider.baseUrl;
  if (merged.customHost) {
    const checked = await deps.checkCustomHost(merged.customHost, merged.customHostParam);
    if (!checked.ok) return checked;
    const base = customHostBaseUrl(provider, merged.customHost, checked.value, merged.customHostParam ?? "x-gateway-custom-host");
    if (!base.ok) return base;
    baseUrl = base.value;
  }
  if (!baseUrl) {
    const needs = merged.storedCredential ? `${merged.storedCredential} has no custom_host` : "send x-gateway-custom-host";
    return fail(new GatewayError("invalid_request", `Provider "${provider.id}" needs a base URL: ${needs}.`, { param: "x-gateway-custom-host" }));
  }

  return ok({
    provider,
    baseUrl,
    credentials: { style: "bearer", apiKey: merged.apiKey ?? null, organization: merged.organization ?? null, project: merged.project ?? null, fields },
    model: fromModel?.model ?? request.model,
    virtualKeyId: merged.virtualKeyId ?? null,
  });
}

interface RequestSelection {
  provider?: { name: string; param: string };
  virtualKey?: { slug: string; param: string };
}

/**
 * What the request itself selects. The model form wins over `x-gateway-provider` (it is the
 * more specific, and its prefix must not reach the upstream anyway); a `@` prefix or a name
 * outside the catalogue in the model form names a virtual key.
 */
function selectFromRequest(modelPrefix: string | undefined, headers: TargetHeaders): RequestSelection {
  if (modelPrefix !== undefined) {
    return findProvider(modelPrefix) ? { provider: { name: modelPrefix, param: "model" } } : { virtualKey: { slug: modelPrefix, param: "model" } };
  }
  const header = trimmed(headers.provider);
  const virtualKeyHeader = trimmed(headers.virtualKey);
  if (header?.startsWith("@")) return { virtualKey: { slug: header.slice(1), param: "x-gateway-provider" } };
  const selection: RequestSelection = {};
  if (header) selection.provider = { name: header, param: "x-gateway-provider" };
  if (virtualKeyHeader) selection.virtualKey = { slug: virtualKeyHeader, param: "x-gateway-virtual-key" };
  return selection;
}

async function virtualKeyLayer(slug: string, workspaceId: string, deps: VirtualKeyDeps, param: string): Promise<Result<Layer, GatewayError>> {
  const loaded = await loadVirtualKey(slug, workspaceId, deps, param);
  if (!loaded.ok) return loaded;
  const { record, apiKey } = loaded.value;
  const fields = openCredentialFields(record.fields, deps.secrets);
  if (!fields) {
    return fail(new GatewayError("invalid_request", `Virtual key "${record.slug}" holds credential fields that cannot be decrypted: store them again.`, { param }));
  }
  return ok({
    provider: record.provider,
    // A key stored empty: the fields authorise (Bedrock's access key pair).
    apiKey: apiKey === "" ? undefined : apiKey,
    fields: Object.keys(fields).length > 0 ? fields : undefined,
    organization: record.upstreamOrganization ?? undefined,
    project: record.upstreamProject ?? undefined,
    customHost: record.customHost ?? undefined,
    virtualKeyId: record.id,
    storedCredential: `virtual key "${record.slug}"`,
  });
}

/** The merged target, with the layer its key came from. */
interface MergedLayer extends Layer {
  /** The custom host of the layer the key came from (undefined: the provider's own base URL). */
  keyHost?: string;
  /** The provider the layer the key came from names, if any. */
  keyProvider?: string;
}

/** The winning provider is the last one named; other fields come from layers of that provider (or of none). */
function mergeLayers(layers: Layer[]): MergedLayer {
  const provider = layers.findLast((layer) => layer.provider !== undefined)?.provider;
  const merged: MergedLayer = { provider };
  for (const layer of layers) {
    if (layer.provider !== undefined && layer.provider !== provider) continue;
    for (const field of ["organization", "project"] as const) {
      if (layer[field] !== undefined) merged[field] = layer[field];
    }
    if (layer.customHost !== undefined) {
      merged.customHost = layer.customHost;
      merged.customHostParam = layer.customHostParam;
    }
    // The key travels with where it came from: the log names its virtual key, and a stored
    // key keeps the host stored with it. Stored fields are credentials too.
    if (layer.apiKey !== undefined || layer.fields !== undefined) {
      if (layer.apiKey !== undefined) merged.apiKey = layer.apiKey;
      if (layer.fields !== undefined) merged.fields = { ...merged.fields, ...layer.fields };
      merged.virtualKeyId = layer.virtualKeyId;
      merged.storedCredential = layer.storedCredential;
      merged.keyHost = layer.customHost;
      merged.keyProvider = layer.provider;
    }
  }
  return merged;
}

/**
 * A stored credential (virtual key, stored config) is sent only to the host stored with it, or to
 * the base URL of the provider stored with it when none is: a caller who may use a key but not read it must not
 * be able to aim it at a host of its choosing. Only a request's own key may go to its own host.
 */
function hostOutsideStoredCredential(merged: MergedLayer): GatewayError | null {
  if (!merged.storedCredential) return null;
  // A stored key that names no provider would go to whichever provider the request names.
  if (merged.keyProvider === undefined) {
    return new GatewayError("invalid_request", `The upstream key of ${merged.storedCredential} names no provider, so the gateway cannot tell where it may go: add "provider" beside it.`, {
      param: CONFIG_HEADER,
    });
  }
  if (merged.customHost === merged.keyHost) return null;
  return new GatewayError(
    "forbidden_custom_host",
    `The upstream key of ${merged.storedCredential} is only sent to the host stored with it; a custom host from the request or another config can only be used with the request's own key.`,
    { param: merged.customHostParam ?? "x-gateway-custom-host" },
  );
}

const NO_FIELDS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The provider's credential fields from the request's headers, each checked against its
 * pattern (a region becomes part of a host name): a value that does not match is a 400 naming
 * the header, without echoing the value (it may be a secret).
 */
function credentialFields(provider: Provider, headers: TargetHeaders): Result<Readonly<Record<string, string>>, GatewayError> {
  const declared = provider.credentialFields;
  if (!declared || declared.length === 0 || !headers.header) return ok(NO_FIELDS);
  const fields: Record<string, string> = {};
  for (const field of declared) {
    const value = headers.header(field.header)?.trim();
    if (value === undefined || value === "") continue;
    if (!field.pattern.test(value)) return fail(new GatewayError("invalid_request", `${field.header} is not a valid ${field.description}.`, { param: field.header }));
    fields[field.name] = value;
  }
  return ok(fields);
}
