import { setAnalyticsDimensionsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { analyticsDimensionsSubject } from "../audit/audit-subjects.ts";
import { analyticsDimensionsView } from "../control-plane/views.ts";

export function registerSetAnalyticsDimensions(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(setAnalyticsDimensionsRoute, async (c) => {
    const { workspaceId } = c.get("auth");
    const { metadata_keys: keys } = c.req.valid("json");
    // In one transaction with its audit event; on PostgreSQL it also holds the rollups' lock (see the repository).
    const changed = await auditedChange(c, deps.store, "analytics_dimensions.updated", analyticsDimensionsSubject, async (tx) => ({
      before: { workspaceId, dimensions: await tx.analyticsDimensions.list(workspaceId) },
      after: { workspaceId, dimensions: await tx.analyticsDimensions.replace(workspaceId, keys) },
    }));
    return c.json(analyticsDimensionsView(changed?.after?.dimensions ?? []), 200);
  });
}
