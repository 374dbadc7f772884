import { deleteConfigRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { configSubject } from "../audit/audit-subjects.ts";
import { GatewayError } from "../errors.ts";

export function registerDeleteConfig(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(deleteConfigRoute, async (c) => {
    const auth = c.get("auth");
    const { slug } = c.req.valid("param");
    const deleted = await auditedChange(c, deps.store, "config.deleted", configSubject, async (tx) => {
      const before = await tx.configs.getBySlug(auth.workspaceId, slug);
      return before && (await tx.configs.delete(auth.workspaceId, slug)) ? { before } : undefined;
    });
    if (!deleted) throw new GatewayError("not_found", `No config ${slug} in this workspace.`, { param: "slug" });
    deps.controlPlane.forget("config", auth.workspaceId, slug);
    deps.controlPlane.forget("default-config", auth.workspaceId, "");
    return c.json({ id: slug, object: "config", deleted: true }, 200);
  });
}
