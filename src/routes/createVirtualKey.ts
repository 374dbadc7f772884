import { createVirtualKeyRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { virtualKeySubject } from "../audit/audit-subjects.ts";
import { makeSlug } from "../control-plane/slugs.ts";
import { upstreamFieldsProblem } from "../control-plane/stored-limits.ts";
import { allowedCustomHost, keyHint, requireBaseUrl, storedBudget, storedRateLimit } from "../control-plane/virtual-key-fields.ts";
import { virtualKeyView } from "../control-plane/views.ts";
import { holdsSecretField, storedCredentialFields } from "../control-plane/credential-fields.ts";
import type { NewVirtualKey } from "../store/control-plane-repositories.ts";
import { isoNow, uuidv4 } from "../lib/ids.ts";
import { GatewayError } from "../errors.ts";
import { limitedVirtualKey, syncKeyBudget } from "../control-plane/key-budgets.ts";
import { findProvider } from "../providers/catalogue.ts";
import type { Provider } from "../providers/provider.ts";

export function registerCreateVirtualKey(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(createVirtualKeyRoute, async (c) => {
    const auth = c.get("auth");
    const body = c.req.valid("json");
    const provider = catalogueProvider(body.provider);
    const limit = upstreamFieldsProblem({ ...body, api_key: body.key }, "", "key", provider.id);
    if (limit) throw limit;
    const fields = storedCredentialFields(provider, body.fields ?? {}, {}, deps.secrets);
    // Bedrock's access key pair authorises alone; every other provider needs its key.
    if (body.key === undefined && !holdsSecretField(fields)) {
      throw new GatewayError("invalid_request", `A virtual key for "${provider.id}" needs its key.`, { param: "key" });
    }
    const key = body.key ?? "";
    if (body.custom_host !== undefined) await allowedCustomHost(body.custom_host, "custom_host", deps);
    else requireBaseUrl(provider);
    const now = isoNow();
    const record: NewVirtualKey = {
      id: uuidv4(),
      slug: makeSlug("vk", body.name),
      name: body.name,
      provider: provider.id,
      encryptedKey: deps.secrets.seal(key),
      keyHint: keyHint(key),
      upstreamOrganization: body.upstream_organization ?? null,
      upstreamProject: body.upstream_project ?? null,
      customHost: body.custom_host ?? null,
      fields,
      budget: storedBudget(body.budget ?? null),
      rateLimit: storedRateLimit(body.rate_limit ?? null),
      organisationId: auth.organisationId,
      workspaceId: auth.workspaceId,
      ownerId: auth.keyId,
      updatedBy: auth.keyId,
      createdAt: now,
    };
    const changed = await auditedChange(c, deps.store, "virtual_key.created", virtualKeySubject, async (tx) => {
      const created = await tx.virtualKeys.create(record);
      await syncKeyBudget(tx, limitedVirtualKey(created), created, auth.keyId, now);
      return { after: created };
    });
    if (!changed?.after) throw new Error("a created virtual key is always returned");
    if (record.budget || record.rateLimit) deps.controlPlane.forget("budgets", auth.workspaceId, "*");
    return c.json(virtualKeyView(changed.after), 201);
  });
}

/** The catalogue entry of `provider`; a name outside the catalogue is a 400 naming `provider`. */
function catalogueProvider(name: string): Provider {
  const provider = findProvider(name);
  if (!provider) throw new GatewayError("unknown_provider", `Unknown provider "${name.slice(0, 100)}".`, { param: "provider" });
  return provider;
}
