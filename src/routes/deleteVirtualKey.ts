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
      return before && (await tx.virtualKeys.delete(auth.workspaceId, slug)) ? { before } : undefined;
    });
    if (!deleted) throw new GatewayError("not_found", `No virtual key ${slug} in this workspace.`, { param: "slug" });
    // The request path reads virtual keys through the cache: a deleted key stops working now.
    deps.controlPlane.forget("virtual-key", auth.workspaceId, slug);
    return c.json({ id: slug, object: "virtual_key", deleted: true }, 200);
  });
}
