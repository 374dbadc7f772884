import { idRangeOf } from "../store/log-id-bound.ts";
import { emptyTotals, type ExperimentOutcomesRepository } from "../store/experiment-outcomes-repository.ts";
import type { VariantTotals } from "../records/variant-totals.ts";
import type { ClickHouseConnection } from "./clickhouse-connection.ts";
import { str } from "./clickhouse-sql.ts";

type Row = Record<string, unknown>;
const n = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));

/** The sums of experiments' logs and feedback in ClickHouse: the same totals as the main store's (`experiment-outcomes-repository.ts`). */
export function createClickHouseExperimentOutcomes(connection: ClickHouseConnection): ExperimentOutcomesRepository {
  return {
    async variantTotals(workspaceId, experimentId, since) {
      const from = since === null ? undefined : idRangeOf(since, undefined).from;
      const where = [`workspace_id = ${str(workspaceId)}`, `experiment_id = ${str(experimentId)}`, ...(from === undefined ? [] : [`id >= ${str(from)}`])].join(" AND ");
      const rows = await connection.rows<Row>(
        `SELECT experiment_variant AS v, latency_bucket AS lb, count() AS requests, sum(success = 0) AS errors,
           count(cost_usd) AS cost_n, sum(ifNull(cost_usd, 0)) AS cost_sum, sum(ifNull(cost_usd, 0) * ifNull(cost_usd, 0)) AS cost_squares,
           sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens, sum(total_tokens) AS tokens_sum,
           sum(toFloat64(total_tokens) * total_tokens) AS tokens_squares, min(latency_ms) AS latency_min, max(latency_ms) AS latency_max
         FROM logs WHERE ${where} GROUP BY v, lb`,
      );
      const byVariant = new Map<string, VariantTotals>();
      const totalsOf = (variant: string): VariantTotals => {
        const totals = byVariant.get(variant) ?? emptyTotals(variant);
        byVariant.set(variant, totals);
        return totals;
      };
      for (const row of rows) {
        if (row.v === null || row.v === undefined) continue;
        const totals = totalsOf(String(row.v));
        const requests = n(row.requests);
        totals.requests += requests;
        totals.errors += n(row.errors);
        totals.latency.counts[n(row.lb)]! += requests;
        totals.latency.min = totals.latency.min === null ? n(row.latency_min) : Math.min(totals.latency.min, n(row.latency_min));
        totals.latency.max = totals.latency.max === null ? n(row.latency_max) : Math.max(totals.latency.max, n(row.latency_max));
        totals.cost.n += n(row.cost_n);
        totals.cost.sum += n(row.cost_sum);
        totals.cost.squares += n(row.cost_squares);
        totals.tokens.n += requests;
        totals.tokens.sum += n(row.tokens_sum);
        totals.tokens.squares += n(row.tokens_squares);
        totals.promptTokens += n(row.prompt_tokens);
        totals.completionTokens += n(row.completion_tokens);
      }
      // A trace's feedback counts for the variant of its logs, as in the main store. A feedback row
      // stored twice (a replayed insert) is one until ReplacingMergeTree merges it: `LIMIT 1 BY id`.
      const feedback = await connection.rows<Row>(
        `SELECT v, count() AS n, sum(value) AS sum, sum(value * value) AS squares
         FROM (SELECT id, trace_id, value FROM feedback WHERE workspace_id = ${str(workspaceId)} ORDER BY id LIMIT 1 BY id) AS f
         ALL INNER JOIN (SELECT DISTINCT trace_id, assumeNotNull(experiment_variant) AS v FROM logs WHERE ${where}) AS t USING trace_id
         GROUP BY v`,
      );
      for (const row of feedback) {
        const totals = totalsOf(String(row.v));
        totals.feedback.n += n(row.n);
        totals.feedback.sum += n(row.sum);
        totals.feedback.squares += n(row.squares);
      }
      return [...byVariant.values()];
    },
  };
}
