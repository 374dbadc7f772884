import { createBudgetRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { budgetSubject } from "../audit/audit-subjects.ts";
import { budgetView, checkedPeriod, checkedScope, checkedThresholds, requireSomeLimit } from "../control-plane/budget-fields.ts";
import { storedRateLimit } from "../control-plane/virtual-key-fields.ts";
import { GatewayError } from "../errors.ts";
import type { BudgetScope as BudgetScopeBody } from "../generated/schemas.gen.ts";
import { isoNow, uuidv4 } from "../lib/ids.ts";
import type { BudgetScope } from "../records/budget.ts";
import { budgetUse } from "../spend/budget-use.ts";

export function registerCreateBudget(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(createBudgetRoute, async (c) => {
    const auth = c.get("auth");
    const body = c.req.valid("json");
    const scope = await storedScope(checkedScope(body.scope), auth.workspaceId, auth.organisationId, deps);
    const period = checkedPeriod(body.period);
    const limitUsd = body.limit_usd ?? null;
    const rateLimit = storedRateLimit(body.rate_limit ?? null);
    requireSomeLimit(limitUsd, rateLimit);
    const alertThresholds = checkedThresholds(body.alert_thresholds, limitUsd);
    const changed = await auditedChange(c, deps.store, "budget.created", budgetSubject, async (tx) => ({
      after: await tx.budgets.create({
        id: uuidv4(),
        name: body.name,
        scope,
        limitUsd,
        period,
        alertThresholds,
        rateLimit,
        source: "budget",
        organisationId: auth.organisationId,
        workspaceId: auth.workspaceId,
        ownerId: auth.keyId,
        updatedBy: auth.keyId,
        createdAt: isoNow(),
      }),
    }));
    const created = changed?.after;
    if (!created) throw new Error("a created budget is always returned");
    // The request path reads budgets through the cache: the next request is held to it (on every replica, through Redis).
    deps.controlPlane.forget("budgets", auth.workspaceId, "*");
    const { use, members } = await budgetUse(deps, created, null);
    return c.json(budgetView(created, use, members), 201);
  });
}

/** The scope as stored: a gateway key or virtual key checked to be the workspace's, the virtual key by id. */
async function storedScope(scope: BudgetScopeBody, workspaceId: string, organisationId: string, deps: GatewayDeps): Promise<BudgetScope> {
  switch (scope.type) {
    case "api_key": {
      const key = await deps.store.apiKeys.getById(scope.api_key_id!, organisationId, workspaceId);
      if (!key) throw new GatewayError("invalid_request", `No gateway key ${scope.api_key_id} in this workspace.`, { param: "scope.api_key_id" });
      return { type: "api_key", apiKeyId: key.id };
    }
    case "virtual_key": {
      const key = await deps.store.virtualKeys.getBySlug(workspaceId, scope.virtual_key!);
      if (!key) throw new GatewayError("invalid_request", `No virtual key ${scope.virtual_key!.slice(0, 200)} in this workspace.`, { param: "scope.virtual_key" });
      return { type: "virtual_key", virtualKeyId: key.id, virtualKeySlug: key.slug };
    }
    case "user":
      return { type: "user", user: scope.user ?? null };
    case "metadata":
      return { type: "metadata", key: scope.key!, value: scope.value ?? null };
    case "model":
      return { type: "model", model: scope.model ?? null };
    default:
      return { type: "workspace" };
  }
}
