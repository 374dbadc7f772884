import type { BudgetMember } from "../generated/schemas.gen.ts";
import { heldPerValue, type BudgetUseView } from "../control-plane/budget-fields.ts";
import type { BudgetRecord } from "../records/budget.ts";
import type { SpendRepository } from "../store/spend-repository.ts";
import { memberOfCounterId } from "./budget-index.ts";
import { periodBounds } from "./periods.ts";
import type { SpendMeter } from "./spend-meter.ts";

/** Members a budget's view lists at most. */
const MAX_MEMBERS = 20;

const NO_USE: BudgetUseView = { spent_usd: null, remaining_usd: null, period_start: null, period_end: null, forecast_usd: null };

/**
 * A budget's use for its view: of the budget, or of `member` for one held per value (without a
 * member such a budget shows no use of its own); and, for one held per value, the members that
 * spent most this period (from the store) with their live use (from the counters).
 */
export async function budgetUse(
  deps: { spend: SpendMeter; store: { spend: Pick<SpendRepository, "members"> } },
  budget: BudgetRecord,
  member: string | null,
): Promise<{ use: BudgetUseView; members: BudgetMember[] }> {
  const perValue = heldPerValue(budget.scope);
  const use = perValue && member === null ? NO_USE : useView(await deps.spend.use(budget, perValue ? member : null));
  if (!perValue) return { use, members: [] };
  const bounds = periodBounds(budget.period, Date.now());
  const period = bounds.rolling ? { rollingSinceIso: new Date(bounds.rolling.cutMs).toISOString() } : { start: bounds.start };
  const rows = await deps.store.spend.members(budget.id, period, MAX_MEMBERS);
  const members = await Promise.all(
    rows.map(async (row) => {
      const value = memberOfCounterId(row.keyId) ?? "";
      // A long value is kept by its digest (`#…`), which names the same counter again.
      const live = await deps.spend.use(budget, value);
      return { value, spent_usd: live.spentUsd, remaining_usd: live.remainingUsd, forecast_usd: live.forecastUsd };
    }),
  );
  return { use, members };
}

function useView(use: Awaited<ReturnType<SpendMeter["use"]>>): BudgetUseView {
  return { spent_usd: use.spentUsd, remaining_usd: use.remainingUsd, period_start: use.periodStart, period_end: use.periodEnd, forecast_usd: use.forecastUsd };
}
