import { deleteVirtualKeyRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { virtualKeySubject } from "../audit/audit-subjects.ts";
import { GatewayError } from "../errors.ts";

export function registerDeleteVirtualKey(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(deleteVirtualKeyRoute, async (c) => {
    const auth = c.get("auth");
    const { slug } = c.req.valid("param");
    const deleted = await auditedChange(c, deps.store, "virtual_key.deleted", virtualKeySubject, async (tx) => {
      const before = await tx.virtualKeys.getBySlug(auth.workspaceId, slug);
      if (!before || !(await tx.virtualKeys.delete(auth.workspaceId, slug))) return undefined;
      // Budgets of a key that is gone hold nothing any more, and there is no bill of it to read.
      await tx.budgets.deleteForKey(auth.workspaceId, "virtual_key", before.id);
      await tx.reconciliation.delete(auth.workspaceId, before.id);
      return { before };
    });
    if (!deleted) throw new GatewayError("not_found", `No virtual key ${slug} in this workspace.`, { param: "slug" });
    // The request path reads virtual keys through the cache: a deleted key stops working now.
    deps.controlPlane.forget("virtual-key", auth.workspaceId, slug);
    deps.controlPlane.forget("budgets", auth.workspaceId, "*");
    return c.json({ id: slug, object: "virtual_key", deleted: true }, 200);
  });
}
