import { createVirtualKeyRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { makeSlug } from "../control-plane/slugs.ts";
import { virtualKeyView } from "../control-plane/views.ts";
import type { NewVirtualKey } from "../store/control-plane-repositories.ts";
import type { VirtualKeyBudget, VirtualKeyRateLimit } from "../generated/schemas.gen.ts";
import { isoNow, uuidv4 } from "../core/ids.ts";
import { GatewayError } from "../errors.ts";
import { findProvider, type ProviderDefinition } from "../providers/catalogue.ts";

export function registerCreateVirtualKey(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(createVirtualKeyRoute, async (c) => {
    const auth = c.get("auth");
    const body = c.req.valid("json");
    const provider = catalogueProvider(body.provider);
    if (body.custom_host !== undefined) await allowedCustomHost(body.custom_host, "custom_host", deps);
    else requireBaseUrl(provider);
    const now = isoNow();
    const record: NewVirtualKey = {
      id: uuidv4(),
      slug: makeSlug("vk", body.name),
      name: body.name,
      provider: provider.id,
      encryptedKey: deps.secrets.seal(body.key),
      keyHint: keyHint(body.key),
      upstreamOrganization: body.upstream_organization ?? null,
      upstreamProject: body.upstream_project ?? null,
      customHost: body.custom_host ?? null,
      budget: storedBudget(body.budget ?? null),
      rateLimit: storedRateLimit(body.rate_limit ?? null),
      organisationId: auth.organisationId,
      workspaceId: auth.workspaceId,
      ownerId: auth.keyId,
      updatedBy: auth.keyId,
      createdAt: now,
    };
    const created = await deps.store.virtualKeys.create(record);
    return c.json(virtualKeyView(created), 201);
  });
}

/** The catalogue entry of `provider`; a name outside the catalogue is a 400 naming `provider`. */
function catalogueProvider(name: string): ProviderDefinition {
  const provider = findProvider(name);
  if (!provider) throw new GatewayError("unknown_provider", `Unknown provider "${name.slice(0, 100)}".`, { param: "provider" });
  return provider;
}

/** A provider without a default base URL (`openai-compatible`) is unusable without a custom host. */
export function requireBaseUrl(provider: ProviderDefinition): void {
  if (provider.baseUrl === null) {
    throw new GatewayError("invalid_request", `Provider "${provider.id}" needs a custom_host.`, { param: "custom_host" });
  }
}

/**
 * Runs the SSRF guard on a custom host given in an admin write. A refusal (or a host that
 * cannot be resolved, so cannot be verified) is a 400 naming `param`; the guard's messages
 * never echo credentials, path or query.
 */
export async function allowedCustomHost(url: string, param: string, deps: Pick<GatewayDeps, "checkCustomHost">): Promise<void> {
  const checked = await deps.checkCustomHost(url);
  if (checked.ok) return;
  const code = checked.error.status === 400 ? checked.error.code : "invalid_request";
  throw new GatewayError(code, checked.error.message, { param });
}

/**
 * The last four characters of the upstream key, shown as `****abcd`. A key shorter than
 * 16 characters gets no hint: four characters would give away too much of it.
 */
export function keyHint(key: string): string {
  return key.length >= 16 ? key.slice(-4) : "";
}

export function storedBudget(budget: VirtualKeyBudget | null): NewVirtualKey["budget"] {
  return budget ? { creditLimitUsd: budget.credit_limit_usd, period: budget.period } : null;
}

/** `{}` sets no limit, so it is stored as none. */
export function storedRateLimit(limit: VirtualKeyRateLimit | null): NewVirtualKey["rateLimit"] {
  if (!limit || (limit.requests_per_minute === undefined && limit.tokens_per_minute === undefined)) return null;
  return { requestsPerMinute: limit.requests_per_minute ?? null, tokensPerMinute: limit.tokens_per_minute ?? null };
}
