import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

/** Which table a metered key lives in. */
/** Which counters a metered id belongs to: budgets (`budgets` rows, and members of those held per value); the key kinds name counters of older stores. */
export type SpendKeyKind = "budget" | "virtual_key" | "api_key";

/** Spend settled for one key in one period, as a replica adds it (a delta, not a total). */
export interface SpendDelta {
  keyKind: SpendKeyKind;
  keyId: string;
  /** ISO start of the UTC period, or `none`. */
  periodStart: string;
  deltaUsd: number;
}

export interface SpendRow {
  keyKind: SpendKeyKind;
  keyId: string;
  periodStart: string;
  spentUsd: number;
}

/** Settled spend per key and period (`key_spend`). Replicas add deltas, so none overwrites another's. */
export interface SpendRepository {
  /** Adds each delta to its row (created at 0 when missing), in one transaction. */
  add(deltas: readonly SpendDelta[], at: string): Promise<void>;
  /** Every row whose period starts at one of `periodStarts`. */
  inPeriods(periodStarts: readonly string[]): Promise<SpendRow[]>;
  /**
   * The rows of periods that may still be current (startup, and seeding an emptied Redis): the
   * never-resetting ones (`none`), and calendar periods and rolling buckets (`r:<ISO>`) that
   * began at or after `sinceIso`.
   */
  current(sinceIso: string): Promise<SpendRow[]>;
  /**
   * The members of a budget held per value (ids `<budgetId>/<member>`) with their spend in one
   * period (for a rolling budget, summed over its buckets from `rollingSinceIso` on), most spent
   * first, at most `limit`. `periodStart` of each row is the period's.
   */
  members(budgetId: string, period: { start: string } | { rollingSinceIso: string }, limit: number): Promise<SpendRow[]>;
}

export function createSpendRepository(db: Kysely<Database>): SpendRepository {
  return {
    async add(deltas, at) {
      if (deltas.length === 0) return;
      await db.transaction().execute(async (trx) => {
        for (const delta of deltas) {
          await trx
            .insertInto("key_spend")
            .values({ key_kind: delta.keyKind, key_id: delta.keyId, period_start: delta.periodStart, spent_usd: delta.deltaUsd, updated_at: at })
            .onConflict((conflict) =>
              conflict.columns(["key_kind", "key_id", "period_start"]).doUpdateSet((eb) => ({
                spent_usd: eb("key_spend.spent_usd", "+", eb.ref("excluded.spent_usd")),
                updated_at: at,
              })),
            )
            .execute();
        }
      });
    },

    async inPeriods(periodStarts) {
      if (periodStarts.length === 0) return [];
      const rows = await db.selectFrom("key_spend").selectAll().where("period_start", "in", [...periodStarts]).execute();
      return rows.map(spendRow);
    },

    async current(sinceIso) {
      const rows = await db
        .selectFrom("key_spend")
        .selectAll()
        .where((eb) =>
          eb.or([
            eb("period_start", "=", "none"),
            // ISO starts begin with a digit; rolling buckets with `r:`.
            eb.and([eb("period_start", ">=", sinceIso), eb("period_start", "<", "a")]),
            eb.and([eb("period_start", ">=", `r:${sinceIso}`), eb("period_start", "<", "r;")]),
          ]),
        )
        .execute();
      return rows.map(spendRow);
    },

    async members(budgetId, period, limit) {
      const start = "start" in period ? period.start : "rolling";
      const rows = await db
        .selectFrom("key_spend")
        .select((eb) => ["key_id", eb.fn.sum<number>("spent_usd").as("spent")])
        .where("key_kind", "=", "budget")
        .where("key_id", ">=", `${budgetId}/`)
        .where("key_id", "<", `${budgetId}0`)
        .where((eb) =>
          "start" in period ? eb("period_start", "=", period.start) : eb.and([eb("period_start", ">=", `r:${period.rollingSinceIso}`), eb("period_start", "<", "r;")]),
        )
        .groupBy("key_id")
        .orderBy("spent", "desc")
        .limit(limit)
        .execute();
      return rows.map((row) => ({ keyKind: "budget" as const, keyId: row.key_id, periodStart: start, spentUsd: Number(row.spent) }));
    },
  };
}

function spendRow(row: { key_kind: string; key_id: string; period_start: string; spent_usd: number }): SpendRow {
  const kind: SpendKeyKind = row.key_kind === "api_key" ? "api_key" : row.key_kind === "virtual_key" ? "virtual_key" : "budget";
  return { keyKind: kind, keyId: row.key_id, periodStart: row.period_start, spentUsd: Number(row.spent_usd) };
}
