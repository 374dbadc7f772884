/**
 * Migration 7: the per-dimension rollup fed from the combinations rollup's view instead of from
 * `logs`. Both are per hour: each row of `log_rollups_hourly` (one per workspace, hour, success
 * and combination of model, provider, virtual key and status in an insert) is already a sum of
 * the records it holds, so the per-dimension rows are sums of those rows (`-MergeState`: the same
 * states as summing the records). The view array-joins five rows per combination row rather than
 * five per record, and merges histogram states rather than building one array per record: the
 * per-dimension view was the second most costly part of an insert (docs/benchmark-store.md).
 *
 * ClickHouse runs a view chained on another view's output when the second view reads from the
 * first view by name up to release 18, and from the first view's target table in later releases
 * (ClickHouse issue 7195): the source is chosen by the server's release. Both are tested, on
 * 18.16 and on the current release (through chdb).
 */

/** `=model`-style key columns of the combinations rollup, per dimension of the per-dimension rollup. */
const DIMENSIONS = `[('all', ''), ('model', model_key), ('provider', provider_key), ('virtual_key_id', virtual_key_id_key),
  ('status', concat('=', toString(status)))]`;

/** The per-dimension states as sums of the combination rows' states. */
const MERGED_STATES = `
  countMergeState(requests) AS requests,
  sumMergeState(errors) AS errors,
  sumMergeState(cost_usd) AS cost_usd,
  sumMergeState(cost_saved_usd) AS cost_saved_usd,
  sumMergeState(cache_hits) AS cache_hits,
  sumMergeState(semantic_cache_hits) AS semantic_cache_hits,
  sumMergeState(prompt_tokens) AS prompt_tokens,
  sumMergeState(completion_tokens) AS completion_tokens,
  sumMergeState(total_tokens) AS total_tokens,
  minMergeState(latency_min) AS latency_min,
  maxMergeState(latency_max) AS latency_max,
  minIfMergeState(ttft_min) AS ttft_min,
  maxIfMergeState(ttft_max) AS ttft_max,
  sumForEachMergeState(latency) AS latency,
  sumForEachMergeState(ttft) AS ttft`;

/** Where a view chained on the combinations view reads its rows, on a server of this release. */
function combinationsSource(serverVersion: string): string {
  return Number.parseInt(serverVersion, 10) < 19 ? "log_rollups_hourly_mv" : "log_rollups_hourly";
}

/** The chained view's name: new, so it can exist before the view it replaces is dropped. */
export const CASCADE_VIEW = "log_rollups_hourly_dims_cascade_mv";

/**
 * The statements of migration 7: the chained view created, then the per-record view dropped.
 * The table and its rows stay. Run again, they end the same. An insert another gateway makes in
 * the moment between the two statements feeds both views, and its records are counted twice in
 * the per-dimension rollup (see docs/clickhouse.md, "Schema").
 */
export function cascadeStatements(serverVersion: string): string[] {
  return [
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${CASCADE_VIEW} TO log_rollups_hourly_dims AS
     SELECT workspace_id, dim_value.1 AS dim, dim_value.2 AS value, hour, success, ${MERGED_STATES}
     FROM ${combinationsSource(serverVersion)} ARRAY JOIN ${DIMENSIONS} AS dim_value
     GROUP BY workspace_id, dim, value, hour, success`,
    "DROP TABLE IF EXISTS log_rollups_hourly_dims_mv",
  ];
}
