import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

/** Which table a metered key lives in. */
export type SpendKeyKind = "virtual_key" | "api_key";

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
  /** Every row whose period starts at one of `periodStarts` (the periods current at startup). */
  inPeriods(periodStarts: readonly string[]): Promise<SpendRow[]>;
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
      return rows.map((row) => ({
        keyKind: row.key_kind === "api_key" ? "api_key" : "virtual_key",
        keyId: row.key_id,
        periodStart: row.period_start,
        spentUsd: Number(row.spent_usd),
      }));
    },
  };
}
