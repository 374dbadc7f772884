import { budgetAuditView } from "../control-plane/budget-fields.ts";
import type { ThresholdCrossing } from "../spend/spend-meter.ts";
import type { WebhookEvent } from "./webhook-events.ts";

/**
 * `budget.threshold_crossed`: a budget's settled spend in a period went from below a threshold to
 * at or above it. Once per budget (member), period and threshold.
 */
export function budgetThresholdEvent(crossing: ThresholdCrossing): WebhookEvent {
  const { budget } = crossing;
  const view = budgetAuditView(budget);
  return {
    type: "budget.threshold_crossed",
    workspaceId: budget.workspaceId,
    dedupKey: `budget:${budget.id}:${crossing.member ?? ""}:${crossing.periodKey}:${crossing.threshold}`,
    data: {
      budget: { id: budget.id, name: budget.name, scope: view.scope, period: view.period, source: budget.source },
      member: crossing.member,
      threshold: crossing.threshold,
      spent_usd: crossing.spentUsd,
      limit_usd: crossing.limitUsd,
      period: { start: crossing.periodStart, end: crossing.periodEnd },
    },
  };
}
