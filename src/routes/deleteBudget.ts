import { deleteBudgetRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { budgetSubject } from "../audit/audit-subjects.ts";
import { GatewayError } from "../errors.ts";

export function registerDeleteBudget(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(deleteBudgetRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const current = await deps.store.budgets.get(auth.workspaceId, id);
    if (current?.source === "key") {
      throw new GatewayError("invalid_request", "This budget is a key's own: set the key's budget and rate_limit to null to remove it.", { param: "id" });
    }
    const deleted = await auditedChange(c, deps.store, "budget.deleted", budgetSubject, async (tx) => {
      const before = await tx.budgets.get(auth.workspaceId, id);
      return before && (await tx.budgets.delete(auth.workspaceId, id)) ? { before } : undefined;
    });
    if (!deleted) throw new GatewayError("not_found", `No budget ${id} in this workspace.`, { param: "id" });
    deps.controlPlane.forget("budgets", auth.workspaceId, "*");
    return c.json({ id, object: "budget", deleted: true }, 200);
  });
}
