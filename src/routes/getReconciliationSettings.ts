import { getReconciliationSettingsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { reconciliationSettingsView } from "../control-plane/reconciliation-fields.ts";
import { GatewayError } from "../errors.ts";

export function registerGetReconciliationSettings(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(getReconciliationSettingsRoute, async (c) => {
    const auth = c.get("auth");
    const { slug } = c.req.valid("param");
    const key = await deps.store.virtualKeys.getBySlug(auth.workspaceId, slug);
    const settings = key && (await deps.store.reconciliation.get(auth.workspaceId, key.id));
    if (!key || !settings) throw new GatewayError("not_found", `No reconciliation settings for virtual key ${slug} in this workspace.`, { param: "slug" });
    return c.json(reconciliationSettingsView(settings, key.slug), 200);
  });
}
