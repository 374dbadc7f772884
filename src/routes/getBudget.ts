import { getBudgetRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { budgetView, heldPerValue } from "../control-plane/budget-fields.ts";
import { GatewayError } from "../errors.ts";
import { budgetUse } from "../spend/budget-use.ts";

export function registerGetBudget(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(getBudgetRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const { member } = c.req.valid("query");
    const budget = await deps.store.budgets.get(auth.workspaceId, id);
    if (!budget) throw new GatewayError("not_found", `No budget ${id} in this workspace.`, { param: "id" });
    if (member !== undefined && !heldPerValue(budget.scope)) {
      throw new GatewayError("invalid_request", "Only a budget held per value (each end user, metadata value or model) has members.", { param: "member" });
    }
    const { use, members } = await budgetUse(deps, budget, member ?? null);
    return c.json(budgetView(budget, use, members), 200);
  });
}
