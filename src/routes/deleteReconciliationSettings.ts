import { deleteReconciliationSettingsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { reconciliationSubject } from "../audit/audit-subjects.ts";
import { GatewayError } from "../errors.ts";

export function registerDeleteReconciliationSettings(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(deleteReconciliationSettingsRoute, async (c) => {
    const auth = c.get("auth");
    const { slug } = c.req.valid("param");
    const key = await deps.store.virtualKeys.getBySlug(auth.workspaceId, slug);
    const deleted =
      key &&
      (await auditedChange(c, deps.store, "reconciliation.deleted", reconciliationSubject(key.slug), async (tx) => {
        const before = await tx.reconciliation.get(auth.workspaceId, key.id);
        return before && (await tx.reconciliation.delete(auth.workspaceId, key.id)) ? { before } : undefined;
      }));
    if (!deleted) throw new GatewayError("not_found", `No reconciliation settings for virtual key ${slug} in this workspace.`, { param: "slug" });
    return c.json({ id: slug, object: "reconciliation_settings", deleted: true }, 200);
  });
}
