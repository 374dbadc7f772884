import { updateVirtualKeyRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { virtualKeySubject } from "../audit/audit-subjects.ts";
import { virtualKeyView } from "../control-plane/views.ts";
import type { VirtualKeyChange } from "../store/control-plane-repositories.ts";
import { isoNow } from "../lib/ids.ts";
import { GatewayError } from "../errors.ts";
import { findProvider } from "../providers/catalogue.ts";
import { holdsSecretField, storedCredentialFields } from "../control-plane/credential-fields.ts";
import type { VirtualKeyRecord } from "../records/control-plane.ts";
import { MASKED_SECRET } from "../crypto/sealed-secret.ts";
import { movedSecretError, RESEND_KEY, sameUrl } from "../records/secret-destinations.ts";
import { upstreamFieldsProblem } from "../control-plane/stored-limits.ts";
import { allowedCustomHost, keyHint, requireBaseUrl, storedBudget, storedRateLimit } from "../control-plane/virtual-key-fields.ts";
import { limitedVirtualKey, syncKeyBudget } from "../control-plane/key-budgets.ts";

const FIELDS = ["name", "key", "fields", "upstream_organization", "upstream_project", "custom_host", "budget", "rate_limit"] as const;

export function registerUpdateVirtualKey(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(updateVirtualKeyRoute, async (c) => {
    const auth = c.get("auth");
    const { slug } = c.req.valid("param");
    const body = c.req.valid("json");
    if (Object.keys(body).length === 0) {
      throw new GatewayError("invalid_request", `The body must set at least one of: ${FIELDS.join(", ")}.`, { param: "body" });
    }
    for (const field of ["upstream_organization", "upstream_project", "custom_host"] as const) {
      if (body[field] === "") throw new GatewayError("invalid_request", `${field} must not be empty: send null to clear it.`, { param: field });
    }
    const notFound = () => new GatewayError("not_found", `No virtual key ${slug} in this workspace.`, { param: "slug" });
    // A new key is checked by the rule of the provider it goes to (stored with the key).
    const keyProvider = body.key === undefined ? undefined : (await deps.store.virtualKeys.getBySlug(auth.workspaceId, slug))?.provider;
    const limit = upstreamFieldsProblem({ ...body, api_key: body.key }, "", "key", keyProvider);
    if (limit) throw limit;

    const change: VirtualKeyChange = { updatedBy: auth.keyId, at: isoNow() };
    if (body.name !== undefined) change.name = body.name;
    if (body.key !== undefined) {
      change.encryptedKey = deps.secrets.seal(body.key);
      change.keyHint = keyHint(body.key);
    }
    if (body.fields !== undefined) {
      const current = await deps.store.virtualKeys.getBySlug(auth.workspaceId, slug);
      if (!current) throw notFound();
      const provider = findProvider(current.provider);
      if (!provider) throw new GatewayError("invalid_request", `Provider "${current.provider}" is no longer in the catalogue.`, { param: "fields" });
      change.fields = body.fields === null ? {} : storedCredentialFields(provider, body.fields, current.fields, deps.secrets);
    }
    if (body.upstream_organization !== undefined) change.upstreamOrganization = body.upstream_organization;
    if (body.upstream_project !== undefined) change.upstreamProject = body.upstream_project;
    if (body.custom_host !== undefined) {
      if (body.custom_host !== null) await allowedCustomHost(body.custom_host, "custom_host", deps);
      const current = await deps.store.virtualKeys.getBySlug(auth.workspaceId, slug);
      if (!current) throw notFound();
      const provider = findProvider(current.provider);
      if (body.custom_host === null && provider) requireBaseUrl(provider);
      // The stored key goes only where it went (its provider's own base URL when no host is stored): a new host takes the key itself.
      const own = provider?.baseUrl ?? null;
      if (!resendsStoredSecrets(current, body, deps) && !sameUrl(body.custom_host ?? own, current.customHost ?? own)) {
        throw movedSecretError("custom_host", "the virtual key's stored key", RESEND_KEY);
      }
      change.customHost = body.custom_host;
    }
    if (body.budget !== undefined) change.budget = storedBudget(body.budget);
    if (body.rate_limit !== undefined) change.rateLimit = storedRateLimit(body.rate_limit);

    const changed = await auditedChange(c, deps.store, "virtual_key.updated", virtualKeySubject, async (tx) => {
      const before = await tx.virtualKeys.getBySlug(auth.workspaceId, slug);
      const after = before && (await tx.virtualKeys.update(auth.workspaceId, slug, change));
      if (after && (change.budget !== undefined || change.rateLimit !== undefined)) await syncKeyBudget(tx, limitedVirtualKey(after), after, auth.keyId, change.at);
      return before && { before, after };
    });
    const updated = changed?.after;
    if (!updated) throw notFound();
    deps.controlPlane.forget("virtual-key", auth.workspaceId, slug);
    // A key's own limits are a budget: the request path reads them with the workspace's budgets.
    if (change.budget !== undefined || change.rateLimit !== undefined) deps.controlPlane.forget("budgets", auth.workspaceId, "*");
    return c.json(virtualKeyView(updated), 200);
  });
}

/**
 * Whether an update sends again every secret the key stores: its key (unless it stores none, as a
 * Bedrock key with an access key pair may) and its secret fields (none kept masked).
 */
function resendsStoredSecrets(current: VirtualKeyRecord, body: { key?: string; fields?: Record<string, string> | null }, deps: GatewayDeps): boolean {
  let storesKey = true;
  try {
    storesKey = deps.secrets.open(current.encryptedKey) !== "";
  } catch {
    // Not readable: treated as a stored key.
  }
  const keyResent = body.key !== undefined || !storesKey;
  const fieldsResent = !holdsSecretField(current.fields) || body.fields === null || (body.fields !== undefined && !Object.values(body.fields).includes(MASKED_SECRET));
  return keyResent && fieldsResent;
}
