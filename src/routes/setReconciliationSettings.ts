import { setReconciliationSettingsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { reconciliationSubject } from "../audit/audit-subjects.ts";
import { reconciledProvider, reconciliationSettingsView, storedReconciliationSettings } from "../control-plane/reconciliation-fields.ts";
import { GatewayError } from "../errors.ts";
import { isoNow } from "../lib/ids.ts";

export function registerSetReconciliationSettings(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(setReconciliationSettingsRoute, async (c) => {
    const auth = c.get("auth");
    const { slug } = c.req.valid("param");
    const body = c.req.valid("json");
    const key = await deps.store.virtualKeys.getBySlug(auth.workspaceId, slug);
    if (!key) throw new GatewayError("not_found", `No virtual key ${slug} in this workspace.`, { param: "slug" });
    const provider = reconciledProvider(key.provider);
    const current = await deps.store.reconciliation.get(auth.workspaceId, key.id);
    const fields = await storedReconciliationSettings(body, current, deps);
    const now = isoNow();
    const changed = await auditedChange(c, deps.store, "reconciliation.updated", reconciliationSubject(key.slug), async (tx) => {
      const after = await tx.reconciliation.put(
        { virtualKeyId: key.id, organisationId: key.organisationId, workspaceId: key.workspaceId, provider, ...fields, updatedBy: auth.keyId, createdAt: current?.createdAt ?? now },
        now,
      );
      return { before: current, after };
    });
    if (!changed?.after) throw new Error("stored settings are always returned");
    return c.json(reconciliationSettingsView(changed.after, key.slug), 200);
  });
}
