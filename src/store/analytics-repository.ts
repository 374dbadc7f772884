import type { Kysely } from "kysely";
import type { AnalyticsSlice, SliceAggregates } from "../analytics/aggregate.ts";
import { chooseRollup, splitByPeriods, type TimeRange } from "./analytics-plan.ts";
import { addRawAggregates, addRollupAggregates } from "./analytics-sql.ts";
import type { LogFilterSet } from "./log-filters.ts";
import { partitionedById } from "./log-id-bound.ts";
import { readBuiltUntil } from "./log-rollup-build.ts";
import { ROLLUP_PERIOD } from "./log-rollup-rows.ts";
import type { Database } from "./schema.ts";

/** A selection whose time range is fixed (the route resolves the defaults). */
export type AnalyticsSelection = LogFilterSet & TimeRange;

/** Aggregates of the stored logs, always scoped to one workspace. */
export interface AnalyticsRepository {
  /**
   * The records of `selection.workspaceId` matching the logs filters in `[from, to)`, summed
   * per slice key. Keys with no records are absent. Whole UTC periods come from the rollups when
   * every filter and the slice fit one rollup dimension (`chooseRollup`) and the period is built
   * (PostgreSQL sums closed hours in the background), the partial hours at either end, the periods not built yet and every other query from the raw rows (so the result is exact whatever the range); both give the same sums and histograms.
   * `via: "raw"` forces the raw rows (tests compare the two paths).
   */
  aggregate(selection: AnalyticsSelection, slice: AnalyticsSlice, options?: { via?: "raw" }): Promise<SliceAggregates>;
}

export function createAnalyticsRepository(db: Kysely<Database>): AnalyticsRepository {
  return {
    async aggregate(selection, slice, options) {
      const into: SliceAggregates = new Map();
      const choice = options?.via === "raw" ? null : chooseRollup(selection, slice);
      if (!choice) {
        await addRawAggregates(db, selection, slice, into);
        return into;
      }
      // PostgreSQL sums closed hours in the background: what is not built yet is read raw.
      const postgres = partitionedById(db);
      const builtUntil = postgres ? await readBuiltUntil(db) : undefined;
      const period = ROLLUP_PERIOD[choice.dim];
      const { hours, edges } = splitByPeriods(selection, period, builtUntil);
      const rollups = { workspaceId: selection.workspaceId, success: selection.success, choice };
      if (hours) {
        // PostgreSQL also keeps day rows of the hourly dimensions: whole days read one row per key,
        // only the hours at either end read hour rows. Hourly buckets need the hour rows.
        const dayRows = postgres && period === "hour" && !(slice.kind === "time" && slice.interval === "hour");
        const { hours: days, edges: edgeHours } = dayRows ? splitByPeriods(hours, "day", builtUntil) : { hours: null, edges: [hours] };
        if (days) await addRollupAggregates(db, { ...rollups, hours: days, dayRows: true }, slice, into);
        for (const range of edgeHours) await addRollupAggregates(db, { ...rollups, hours: range }, slice, into);
      }
      for (const edge of edges) await addRawAggregates(db, { ...selection, ...edge }, slice, into);
      return into;
    },
  };
}
