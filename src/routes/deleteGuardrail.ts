import { deleteGuardrailRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { guardrailSubject } from "../audit/audit-subjects.ts";
import { GatewayError } from "../errors.ts";

export function registerDeleteGuardrail(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(deleteGuardrailRoute, async (c) => {
    const auth = c.get("auth");
    const { slug } = c.req.valid("param");
    const deleted = await auditedChange(c, deps.store, "guardrail.deleted", guardrailSubject, async (tx) => {
      const before = await tx.guardrails.getBySlug(auth.workspaceId, slug);
      return before && (await tx.guardrails.delete(auth.workspaceId, slug)) ? { before } : undefined;
    });
    if (!deleted) throw new GatewayError("not_found", `No guardrail ${slug} in this workspace.`, { param: "slug" });
    // Requests read guardrails through the cache: a deleted guardrail stops applying now.
    deps.controlPlane.forget("guardrail", auth.workspaceId, slug);
    return c.json({ id: slug, object: "guardrail", deleted: true }, 200);
  });
}
