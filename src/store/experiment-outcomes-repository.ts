import { sql, type Kysely } from "kysely";
import { emptyHistogram } from "../analytics/latency-histogram.ts";
import { emptyMoments } from "../analytics/moments.ts";
import type { VariantTotals } from "../records/variant-totals.ts";
import { idRangeOf } from "./log-id-bound.ts";
import { bucketSql } from "./log-rollup-sql.ts";
import type { Database } from "./schema.ts";

/** The sums an experiment's results and guards are read from. */
export interface ExperimentOutcomesRepository {
  /**
   * Per variant, the sums of the experiment's logs (requests, errors, the latency histogram,
   * moments of cost and tokens) and of the feedback on their traces, summed by the store (a row
   * per variant and latency bucket comes back, never a log). `since`: the experiment's first
   * start, an id bound that spares PostgreSQL the day partitions before it. Variants without a
   * log are absent.
   */
  variantTotals(workspaceId: string, experimentId: string, since: string | null): Promise<VariantTotals[]>;
}

type Row = Record<string, unknown>;
const n = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));

export function createExperimentOutcomesRepository(db: Kysely<Database>): ExperimentOutcomesRepository {
  return {
    async variantTotals(workspaceId, experimentId, since) {
      const from = since === null ? undefined : idRangeOf(since, undefined).from;
      const logs = (eb: Kysely<Database>) =>
        eb
          .selectFrom("logs")
          .where("logs.workspace_id", "=", workspaceId)
          .where("logs.experiment_id", "=", experimentId)
          .$if(from !== undefined, (query) => query.where("logs.id", ">=", from!));
      // Squares as double precision: an integer column's square overflows PostgreSQL's integer.
      const rows = (await logs(db)
        .select([
          sql<string>`logs.experiment_variant`.as("v"),
          bucketSql(sql`logs.latency_ms`).as("lb"),
          sql<number>`count(*)`.as("requests"),
          sql<number>`sum(CASE WHEN logs.success = 0 THEN 1 ELSE 0 END)`.as("errors"),
          sql<number>`count(logs.cost_usd)`.as("cost_n"),
          sql<number>`sum(logs.cost_usd)`.as("cost_sum"),
          sql<number>`sum(logs.cost_usd * logs.cost_usd)`.as("cost_squares"),
          sql<number>`sum(logs.prompt_tokens)`.as("prompt_tokens"),
          sql<number>`sum(logs.completion_tokens)`.as("completion_tokens"),
          sql<number>`sum(logs.total_tokens)`.as("tokens_sum"),
          sql<number>`sum(CAST(logs.total_tokens AS DOUBLE PRECISION) * logs.total_tokens)`.as("tokens_squares"),
          sql<number>`min(logs.latency_ms)`.as("latency_min"),
          sql<number>`max(logs.latency_ms)`.as("latency_max"),
        ])
        .groupBy([sql`1`, sql`2`])
        .execute()) as Row[];
      const byVariant = new Map<string, VariantTotals>();
      const totalsOf = (variant: string): VariantTotals => {
        let totals = byVariant.get(variant);
        if (!totals) {
          totals = emptyTotals(variant);
          byVariant.set(variant, totals);
        }
        return totals;
      };
      for (const row of rows) {
        if (row.v === null || row.v === undefined) continue;
        const totals = totalsOf(String(row.v));
        const requests = n(row.requests);
        totals.requests += requests;
        totals.errors += n(row.errors);
        totals.latency.counts[n(row.lb)]! += requests;
        const min = row.latency_min === null ? null : n(row.latency_min);
        const max = row.latency_max === null ? null : n(row.latency_max);
        if (min !== null) totals.latency.min = totals.latency.min === null ? min : Math.min(totals.latency.min, min);
        if (max !== null) totals.latency.max = totals.latency.max === null ? max : Math.max(totals.latency.max, max);
        totals.cost.n += n(row.cost_n);
        totals.cost.sum += n(row.cost_sum);
        totals.cost.squares += n(row.cost_squares);
        totals.tokens.n += requests;
        totals.tokens.sum += n(row.tokens_sum);
        totals.tokens.squares += n(row.tokens_squares);
        totals.promptTokens += n(row.prompt_tokens);
        totals.completionTokens += n(row.completion_tokens);
      }
      // A trace's feedback counts for the variant of its logs (a trace of two variants, only
      // possible with per-request assignment, counts for both).
      const traces = logs(db).select(["logs.trace_id", "logs.experiment_variant"]).distinct().as("t");
      const feedback = (await db
        .selectFrom("feedback")
        .innerJoin(traces, "t.trace_id", "feedback.trace_id")
        .where("feedback.workspace_id", "=", workspaceId)
        .select([
          sql<string>`t.experiment_variant`.as("v"),
          sql<number>`count(*)`.as("n"),
          sql<number>`sum(feedback.value)`.as("sum"),
          sql<number>`sum(feedback.value * feedback.value)`.as("squares"),
        ])
        .groupBy(sql`1`)
        .execute()) as Row[];
      for (const row of feedback) {
        if (row.v === null || row.v === undefined) continue;
        const totals = totalsOf(String(row.v));
        totals.feedback.n += n(row.n);
        totals.feedback.sum += n(row.sum);
        totals.feedback.squares += n(row.squares);
      }
      return [...byVariant.values()];
    },
  };
}

export function emptyTotals(variant: string): VariantTotals {
  return {
    variant,
    requests: 0,
    errors: 0,
    latency: emptyHistogram(),
    cost: emptyMoments(),
    tokens: emptyMoments(),
    promptTokens: 0,
    completionTokens: 0,
    feedback: emptyMoments(),
  };
}
