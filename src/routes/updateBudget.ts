import { updateBudgetRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { budgetSubject } from "../audit/audit-subjects.ts";
import { budgetView, checkedPeriod, checkedThresholds, requireSomeLimit } from "../control-plane/budget-fields.ts";
import { storedRateLimit } from "../control-plane/virtual-key-fields.ts";
import { GatewayError } from "../errors.ts";
import { isoNow } from "../lib/ids.ts";
import type { BudgetChange } from "../store/budgets-repository.ts";
import { budgetUse } from "../spend/budget-use.ts";

export function registerUpdateBudget(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(updateBudgetRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const notFound = () => new GatewayError("not_found", `No budget ${id} in this workspace.`, { param: "id" });
    const current = await deps.store.budgets.get(auth.workspaceId, id);
    if (!current) throw notFound();
    if (current.source === "key") {
      throw new GatewayError("invalid_request", "This budget is a key's own: change it through the key's budget and rate_limit fields.", { param: "id" });
    }
    const change: BudgetChange = { updatedBy: auth.keyId, at: isoNow() };
    if (body.name !== undefined) change.name = body.name;
    if (body.limit_usd !== undefined) change.limitUsd = body.limit_usd;
    if (body.period !== undefined) change.period = checkedPeriod(body.period);
    if (body.rate_limit !== undefined) change.rateLimit = storedRateLimit(body.rate_limit);
    const limitUsd = change.limitUsd === undefined ? current.limitUsd : change.limitUsd;
    requireSomeLimit(limitUsd, change.rateLimit === undefined ? current.rateLimit : change.rateLimit);
    if (body.alert_thresholds !== undefined) change.alertThresholds = checkedThresholds(body.alert_thresholds, limitUsd);
    else if (limitUsd === null && current.alertThresholds.length > 0) change.alertThresholds = [];
    const changed = await auditedChange(c, deps.store, "budget.updated", budgetSubject, async (tx) => {
      const before = await tx.budgets.get(auth.workspaceId, id);
      return before && { before, after: await tx.budgets.update(auth.workspaceId, id, change) };
    });
    const updated = changed?.after;
    if (!updated) throw notFound();
    deps.controlPlane.forget("budgets", auth.workspaceId, "*");
    const { use, members } = await budgetUse(deps, updated, null);
    return c.json(budgetView(updated, use, members), 200);
  });
}
