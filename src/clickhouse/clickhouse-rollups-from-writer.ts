import { ROLLUP_TARGET } from "./clickhouse-rollup-input.ts";

/**
 * Migration 5's schema: the rollups fed by the writer's sums (`clickhouse-rollup-input.ts`)
 * instead of materialized views over every record inserted into `logs`.
 *
 * - The views on `logs` are dropped: an insert into `logs` writes `logs` only.
 * - Each rollup table is rebuilt with `requests` as a sum (a row of the input carries a count)
 *   and the histograms as `sumForEach` arrays of one count per bucket: a query merges them
 *   element by element, several times faster than `sumMap` states (docs/benchmark.md).
 * - `log_rollup_input` (engine Null: it stores nothing) takes the writer's rows; a view per
 *   rollup table turns the rows of its `target` into states, and one more lists the records
 *   summed in `log_rollup_receipts`. One insert writes a batch's rollups and its receipt.
 * - Receipts are written for the records already stored, whose rollups the rebuild counts.
 */

const DAY_MS = 86_400_000;

/** The rollup states, as in migration 2, with `requests` a sum and the histograms arrays. */
const STATES = `
  requests AggregateFunction(sum, UInt64),
  errors AggregateFunction(sum, UInt64),
  cost_usd AggregateFunction(sum, Float64),
  cost_saved_usd AggregateFunction(sum, Float64),
  cache_hits AggregateFunction(sum, UInt64),
  semantic_cache_hits AggregateFunction(sum, UInt64),
  prompt_tokens AggregateFunction(sum, Int64),
  completion_tokens AggregateFunction(sum, Int64),
  total_tokens AggregateFunction(sum, Int64),
  latency_min AggregateFunction(min, Float64),
  latency_max AggregateFunction(max, Float64),
  ttft_min AggregateFunction(minIf, Float64, UInt8),
  ttft_max AggregateFunction(maxIf, Float64, UInt8),
  latency AggregateFunction(sumForEach, Array(UInt64)),
  ttft AggregateFunction(sumForEach, Array(UInt64))`;

/** The states of the writer's summed rows. */
const FROM_INPUT = `
  sumState(requests) AS requests, sumState(errors) AS errors, sumState(cost_usd) AS cost_usd,
  sumState(cost_saved_usd) AS cost_saved_usd, sumState(cache_hits) AS cache_hits,
  sumState(semantic_cache_hits) AS semantic_cache_hits, sumState(prompt_tokens) AS prompt_tokens,
  sumState(completion_tokens) AS completion_tokens, sumState(total_tokens) AS total_tokens,
  minState(latency_min) AS latency_min, maxState(latency_max) AS latency_max,
  minIfState(ttft_min, ttft_count > 0) AS ttft_min, maxIfState(ttft_max, ttft_count > 0) AS ttft_max,
  sumForEachState(latency) AS latency, sumForEachState(ttft) AS ttft`;

/** `[0, …, 0, 1]`: one count in a bucket, as an array up to it. */
const ONE_IN = (bucket: string) => `arrayResize(arrayResize(emptyArrayUInt64(), ${bucket}), ${bucket} + 1, toUInt64(1))`;

/** The states of stored records, one each (the rebuild from `logs`). */
const FROM_LOGS = `
  sumState(toUInt64(1)) AS requests,
  sumState(toUInt64(success = 0)) AS errors,
  sumState(ifNull(cost_usd, 0)) AS cost_usd,
  sumState(ifNull(cost_saved_usd, 0)) AS cost_saved_usd,
  sumState(toUInt64(ifNull(cache_status, '') = 'HIT')) AS cache_hits,
  sumState(toUInt64(ifNull(cache_status, '') = 'SEMANTIC_HIT')) AS semantic_cache_hits,
  sumState(prompt_tokens) AS prompt_tokens,
  sumState(completion_tokens) AS completion_tokens,
  sumState(total_tokens) AS total_tokens,
  minState(latency_ms) AS latency_min,
  maxState(latency_ms) AS latency_max,
  minIfState(ifNull(time_to_first_token_ms, 0), isNotNull(time_to_first_token_ms)) AS ttft_min,
  maxIfState(ifNull(time_to_first_token_ms, 0), isNotNull(time_to_first_token_ms)) AS ttft_max,
  sumForEachState(${ONE_IN("latency_bucket")}) AS latency,
  sumForEachState(if(isNull(ttft_bucket), emptyArrayUInt64(), ${ONE_IN("assumeNotNull(ttft_bucket)")})) AS ttft`;

/**
 * Granules of 256 rows (not 8,192): a query reads one key's rows of each part, a few hundred,
 * and every granule it touches deserialises each state in it; with the default a total over 30
 * days read 140 parts' granules of 8,192 rows for 1,438 rows wanted (140 ms; 20–60 ms with 256).
 */
const SMALL_GRANULES = "SETTINGS index_granularity = 256";

/** A stored key column: `''` for null, else `=` and the value. */
const KEY = (column: string) => `if(isNull(${column}), '', concat('=', assumeNotNull(${column})))`;
const HOUR = "toDateTime(intDiv(created_ms, 3600000) * 3600)";

interface WriterRollup {
  table: string;
  target: number;
  create: string;
  /** The view's select from `log_rollup_input`. */
  fromInput: string;
  /** The rebuild's select from `logs` (or a table of its shape). */
  fromLogs(source: string): string;
}

const ROLLUPS: readonly WriterRollup[] = [
  {
    table: "log_rollups_hourly_dims",
    target: ROLLUP_TARGET.dims,
    create: `(workspace_id String, dim String, value String, hour DateTime, success UInt8, ${STATES})
       ENGINE = AggregatingMergeTree PARTITION BY intDiv(toUInt32(hour), 86400) ORDER BY (workspace_id, dim, value, hour, success) ${SMALL_GRANULES}`,
    fromInput: `SELECT workspace_id, k1 AS dim, k2 AS value, toDateTime(period) AS hour, success, ${FROM_INPUT}
       FROM log_rollup_input WHERE target = ${ROLLUP_TARGET.dims} GROUP BY workspace_id, dim, value, hour, success`,
    fromLogs: (source) => `SELECT workspace_id, dim_value.1 AS dim, dim_value.2 AS value, ${HOUR} AS hour, success, ${FROM_LOGS}
       FROM ${source} ARRAY JOIN [('all', ''), ('model', ${KEY("model")}), ('provider', ${KEY("provider")}),
         ('virtual_key_id', ${KEY("virtual_key_id")}), ('status', concat('=', toString(status)))] AS dim_value
       GROUP BY workspace_id, dim, value, hour, success`,
  },
  {
    table: "log_rollups_hourly",
    target: ROLLUP_TARGET.hourly,
    create: `(workspace_id String, hour DateTime, success UInt8,
         model_key String, provider_key String, virtual_key_id_key String, status Int64, ${STATES})
       ENGINE = AggregatingMergeTree PARTITION BY intDiv(toUInt32(hour), 86400)
       ORDER BY (workspace_id, hour, success, model_key, provider_key, virtual_key_id_key, status) ${SMALL_GRANULES}`,
    fromInput: `SELECT workspace_id, toDateTime(period) AS hour, success, k1 AS model_key, k2 AS provider_key, k3 AS virtual_key_id_key, status, ${FROM_INPUT}
       FROM log_rollup_input WHERE target = ${ROLLUP_TARGET.hourly}
       GROUP BY workspace_id, hour, success, model_key, provider_key, virtual_key_id_key, status`,
    fromLogs: (source) => `SELECT workspace_id, ${HOUR} AS hour, success,
         ${KEY("model")} AS model_key, ${KEY("provider")} AS provider_key, ${KEY("virtual_key_id")} AS virtual_key_id_key, status, ${FROM_LOGS}
       FROM ${source} GROUP BY workspace_id, hour, success, model_key, provider_key, virtual_key_id_key, status`,
  },
  {
    table: "log_rollups_daily_users",
    target: ROLLUP_TARGET.users,
    create: `(workspace_id String, day UInt32, success UInt8, end_user_key String, ${STATES})
       ENGINE = AggregatingMergeTree PARTITION BY intDiv(day, 30) ORDER BY (workspace_id, day, success, end_user_key) ${SMALL_GRANULES}`,
    fromInput: `SELECT workspace_id, period AS day, success, k1 AS end_user_key, ${FROM_INPUT}
       FROM log_rollup_input WHERE target = ${ROLLUP_TARGET.users} GROUP BY workspace_id, day, success, end_user_key`,
    fromLogs: (source) => `SELECT workspace_id, toUInt32(intDiv(created_ms, ${DAY_MS})) AS day, success, ${KEY("end_user")} AS end_user_key, ${FROM_LOGS}
       FROM ${source} GROUP BY workspace_id, day, success, end_user_key`,
  },
  {
    table: "log_rollups_hourly_meta",
    target: ROLLUP_TARGET.meta,
    create: `(workspace_id String, key String, value String, hour DateTime, success UInt8, ${STATES})
       ENGINE = AggregatingMergeTree PARTITION BY intDiv(toUInt32(hour), 86400) ORDER BY (workspace_id, key, value, hour, success) ${SMALL_GRANULES}`,
    fromInput: `SELECT workspace_id, k1 AS key, k2 AS value, toDateTime(period) AS hour, success, ${FROM_INPUT}
       FROM log_rollup_input WHERE target = ${ROLLUP_TARGET.meta} GROUP BY workspace_id, key, value, hour, success`,
    fromLogs: (source) => `SELECT workspace_id, meta.key AS key, meta.value AS value, ${HOUR} AS hour, success, ${FROM_LOGS}
       FROM ${source} ARRAY JOIN meta GROUP BY workspace_id, key, value, hour, success`,
  },
];

/**
 * Adds the rollups and receipts of the records in `source`, a table of the shape of `logs`: for
 * records written into the server without the writer (the benchmark's fill), before they are
 * copied into `logs`.
 */
export const sumRollupsFrom = (source: string): string[] => [
  ...ROLLUPS.map(({ table, fromLogs }) => `INSERT INTO ${table} ${fromLogs(source)}`),
  `INSERT INTO log_rollup_receipts SELECT id, created_ms FROM ${source}`,
];

/**
 * The statements of migration 5. Run again from its first, they end the same (receipts written
 * twice fold into one per record); records another writer stores meanwhile may be counted twice
 * or missed: upgrade with a single gateway writing.
 */
export const ROLLUPS_FROM_WRITER_STATEMENTS: readonly string[] = [
  ...ROLLUPS.map(({ table }) => `DROP TABLE IF EXISTS ${table}_mv`),
  `CREATE TABLE IF NOT EXISTS log_rollup_input (
     target UInt8, workspace_id String, period UInt32, success UInt8, k1 String, k2 String, k3 String, status Int64,
     requests UInt64, errors UInt64, cost_usd Float64, cost_saved_usd Float64, cache_hits UInt64, semantic_cache_hits UInt64,
     prompt_tokens Int64, completion_tokens Int64, total_tokens Int64, latency_min Float64, latency_max Float64,
     ttft_min Float64, ttft_max Float64, ttft_count UInt64, latency Array(UInt64), ttft Array(UInt64),
     ids Array(String), ids_ms Array(Int64)) ENGINE = Null`,
  // Ordered by id alone: the lookup reads it by id ranges, as it reads `logs`.
  `CREATE TABLE IF NOT EXISTS log_rollup_receipts (id String, created_ms Int64)
   ENGINE = ReplacingMergeTree PARTITION BY intDiv(created_ms, ${DAY_MS}) ORDER BY id`,
  `CREATE MATERIALIZED VIEW IF NOT EXISTS log_rollup_receipts_mv TO log_rollup_receipts AS
   SELECT id, created_ms FROM log_rollup_input ARRAY JOIN ids AS id, ids_ms AS created_ms WHERE target = ${ROLLUP_TARGET.receipt}`,
  ...ROLLUPS.flatMap(({ table, create, fromInput, fromLogs }) => [
    `DROP TABLE IF EXISTS ${table}_input_mv`,
    `DROP TABLE IF EXISTS ${table}`,
    `CREATE TABLE IF NOT EXISTS ${table} ${create}`,
    `INSERT INTO ${table} ${fromLogs("logs")}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${table}_input_mv TO ${table} AS ${fromInput}`,
  ]),
  "INSERT INTO log_rollup_receipts SELECT id, created_ms FROM logs",
];
