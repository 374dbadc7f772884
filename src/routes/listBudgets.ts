import { listBudgetsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { budgetView } from "../control-plane/budget-fields.ts";
import { budgetUse } from "../spend/budget-use.ts";

export function registerListBudgets(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(listBudgetsRoute, async (c) => {
    const auth = c.get("auth");
    const budgets = await deps.store.budgets.list(auth.workspaceId);
    const data = await Promise.all(
      budgets.map(async (budget) => {
        const { use, members } = await budgetUse(deps, budget, null);
        return budgetView(budget, use, members);
      }),
    );
    return c.json({ object: "list" as const, total: data.length, data }, 200);
  });
}
