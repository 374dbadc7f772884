/**
 * The rollups of migrations 5, 6 and 8. Migration 5 rebuilds each rollup table with its histograms
 * as `sumForEach` arrays of one count per bucket, in granules of 256 rows, fed by a materialized
 * view on `logs`: a query merges arrays element by element, faster than the `sumMap` states of
 * migrations 3 and 4, and a view builds them at less cost (docs/benchmark-store.md). Migration 6 adds
 * the key-set rollup, which answers a metadata group's null group. Migration 8 orders the end
 * users' day rows by user first; migration 10 adds their hour rows; migration 11 stores the day
 * rows in granules of 64.
 */

const DAY_MS = 86_400_000;

/** The rollup states, as in migration 2, with the histograms as arrays. */
const STATES = `
  requests AggregateFunction(count),
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

/** `[0, …, 0, 1]`: one count in a bucket, as an array up to it. */
const ONE_IN = (bucket: string) => `arrayResize(arrayResize(emptyArrayUInt64(), ${bucket}), ${bucket} + 1, toUInt64(1))`;

/** The states of stored records, one each. */
const FROM_LOGS = `
  countState() AS requests,
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

interface ArrayRollup {
  table: string;
  create: string;
  /** The select over `logs` that feeds it: its view, and its rebuild. */
  select: string;
}

const ROLLUPS: readonly ArrayRollup[] = [
  {
    table: "log_rollups_hourly_dims",
    create: `(workspace_id String, dim String, value String, hour DateTime, success UInt8, ${STATES})
       ENGINE = AggregatingMergeTree PARTITION BY intDiv(toUInt32(hour), 86400) ORDER BY (workspace_id, dim, value, hour, success) ${SMALL_GRANULES}`,
    select: `SELECT workspace_id, dim_value.1 AS dim, dim_value.2 AS value, ${HOUR} AS hour, success, ${FROM_LOGS}
       FROM logs ARRAY JOIN [('all', ''), ('model', ${KEY("model")}), ('provider', ${KEY("provider")}),
         ('virtual_key_id', ${KEY("virtual_key_id")}), ('status', concat('=', toString(status)))] AS dim_value
       GROUP BY workspace_id, dim, value, hour, success`,
  },
  {
    table: "log_rollups_hourly",
    create: `(workspace_id String, hour DateTime, success UInt8,
         model_key String, provider_key String, virtual_key_id_key String, status Int64, ${STATES})
       ENGINE = AggregatingMergeTree PARTITION BY intDiv(toUInt32(hour), 86400)
       ORDER BY (workspace_id, hour, success, model_key, provider_key, virtual_key_id_key, status) ${SMALL_GRANULES}`,
    select: `SELECT workspace_id, ${HOUR} AS hour, success,
         ${KEY("model")} AS model_key, ${KEY("provider")} AS provider_key, ${KEY("virtual_key_id")} AS virtual_key_id_key, status, ${FROM_LOGS}
       FROM logs GROUP BY workspace_id, hour, success, model_key, provider_key, virtual_key_id_key, status`,
  },
  {
    table: "log_rollups_daily_users",
    create: `(workspace_id String, day UInt32, success UInt8, end_user_key String, ${STATES})
       ENGINE = AggregatingMergeTree PARTITION BY intDiv(day, 30) ORDER BY (workspace_id, day, success, end_user_key) ${SMALL_GRANULES}`,
    select: `SELECT workspace_id, toUInt32(intDiv(created_ms, ${DAY_MS})) AS day, success, ${KEY("end_user")} AS end_user_key, ${FROM_LOGS}
       FROM logs GROUP BY workspace_id, day, success, end_user_key`,
  },
  {
    table: "log_rollups_hourly_meta",
    create: `(workspace_id String, key String, value String, hour DateTime, success UInt8, ${STATES})
       ENGINE = AggregatingMergeTree PARTITION BY intDiv(toUInt32(hour), 86400) ORDER BY (workspace_id, key, value, hour, success) ${SMALL_GRANULES}`,
    select: `SELECT workspace_id, meta.key AS key, meta.value AS value, ${HOUR} AS hour, success, ${FROM_LOGS}
       FROM logs ARRAY JOIN meta GROUP BY workspace_id, key, value, hour, success`,
  },
];

/**
 * Per hour, one row per set of metadata keys the records hold (sorted): the records without a
 * key are those of the sets without it, so a group by a metadata key reads its null group here,
 * exact in every sum, histogram and extreme, instead of every record's `meta.key`. Key sets are
 * few (the optional keys' combinations that occur), so its rows are few.
 */
const KEY_SETS: ArrayRollup = {
  table: "log_rollups_hourly_keysets",
  create: `(workspace_id String, hour DateTime, success UInt8, keys Array(String), ${STATES})
     ENGINE = AggregatingMergeTree PARTITION BY intDiv(toUInt32(hour), 86400) ORDER BY (workspace_id, hour, success, keys) ${SMALL_GRANULES}`,
  select: `SELECT workspace_id, ${HOUR} AS hour, success, arraySort(meta.key) AS keys, ${FROM_LOGS}
     FROM logs GROUP BY workspace_id, hour, success, keys`,
};

const rebuild = ({ table, create, select }: ArrayRollup): string[] => [
  `DROP TABLE IF EXISTS ${table}_mv`,
  `DROP TABLE IF EXISTS ${table}`,
  `CREATE TABLE IF NOT EXISTS ${table} ${create}`,
  `CREATE MATERIALIZED VIEW IF NOT EXISTS ${table}_mv TO ${table} AS ${select}`,
  `INSERT INTO ${table} ${select}`,
];

/** Migration 6: the key-set rollup, built from the stored logs (as migration 5, one writer). */
export const KEY_SETS_STATEMENTS: readonly string[] = rebuild(KEY_SETS);

/**
 * End users per UTC day ordered by user, then day (migration 8), in place of
 * `log_rollups_daily_users` (by day, then user). A group by user ranks every user of the range
 * by cost and count, then merges the whole states of the first twenty: ordered by day, each of
 * those twenty sat in its own granule of every day's rows, and merging them read about 300,000
 * rows' states over 30 days (0.4–0.6 s of the 0.6–0.7 s the group took at 30M logs); ordered by
 * user, a user's days are adjacent. Ranking reads the same rows in either order. Each 30-day
 * partition holds every user's days of those 30 days, so retention still drops whole partitions.
 */
const USER_DAYS: ArrayRollup = {
  table: "log_rollups_user_days",
  create: `(workspace_id String, day UInt32, success UInt8, end_user_key String, ${STATES})
     ENGINE = AggregatingMergeTree PARTITION BY intDiv(day, 30) ORDER BY (workspace_id, end_user_key, day, success) ${SMALL_GRANULES}`,
  select: `SELECT workspace_id, toUInt32(intDiv(created_ms, ${DAY_MS})) AS day, success, ${KEY("end_user")} AS end_user_key, ${FROM_LOGS}
     FROM logs GROUP BY workspace_id, day, success, end_user_key`,
};

/**
 * Migration 8: the end-user rollup ordered by user, its rows copied from the one ordered by day,
 * which is then dropped. Copied, not rebuilt from `logs`: a rebuild groups every stored log at
 * once (past ClickHouse's memory limit per query at 100M logs); a copy streams rows already
 * summed. The view on `logs` is created before the copy, so the records another writer stores
 * in the moment between the two are counted twice in this rollup (upgrade with one gateway
 * writing). Run again from its first statement while the old table is there, it starts over;
 * once the old table is gone, the copy had been made, and only what is missing is created.
 */
export function userDaysStatements(tables: ReadonlySet<string>): readonly string[] {
  const create = [`CREATE TABLE IF NOT EXISTS ${USER_DAYS.table} ${USER_DAYS.create}`, `CREATE MATERIALIZED VIEW IF NOT EXISTS ${USER_DAYS.table}_mv TO ${USER_DAYS.table} AS ${USER_DAYS.select}`];
  if (!tables.has("log_rollups_daily_users")) return create;
  return [
    `DROP TABLE IF EXISTS ${USER_DAYS.table}_mv`,
    `DROP TABLE IF EXISTS ${USER_DAYS.table}`,
    ...create,
    `INSERT INTO ${USER_DAYS.table} SELECT * FROM log_rollups_daily_users`,
    "DROP TABLE IF EXISTS log_rollups_daily_users_mv",
    "DROP TABLE IF EXISTS log_rollups_daily_users",
  ];
}

/**
 * Migration 11: the end users' day states in granules of 64 rows. A group by user merges the
 * whole states of its first twenty users; each user's days sit together in every part, so that
 * reads a granule or two per user and part, and in granules of 256 most of what it read was other
 * users' states. The rows are copied into a new table, which then takes the old one's name.
 * The view is dropped for the copy, so records another gateway stores meanwhile are missed in
 * this rollup: upgrade with one gateway writing (its migrations run before its writer starts).
 * Run again, it finishes what a run that stopped left: after the rename, the view and the drop;
 * before it, the copy over again.
 */
export function userDaysInSmallerGranulesStatements(tables: ReadonlySet<string>): readonly string[] {
  const { table, select } = USER_DAYS;
  const next = `${table}_next`;
  const old = `${table}_old`;
  const finish = [`CREATE MATERIALIZED VIEW IF NOT EXISTS ${table}_mv TO ${table} AS ${select}`, `DROP TABLE IF EXISTS ${old}`];
  if (tables.has(next) && !tables.has(table)) return [`RENAME TABLE ${next} TO ${table}`, ...finish];
  if (tables.has(old) && !tables.has(next)) return finish;
  return [
    `DROP TABLE IF EXISTS ${next}`,
    `CREATE TABLE ${next} ${USER_DAYS.create.replace(SMALL_GRANULES, "SETTINGS index_granularity = 64")}`,
    `DROP TABLE IF EXISTS ${table}_mv`,
    `INSERT INTO ${next} SELECT * FROM ${table}`,
    `RENAME TABLE ${table} TO ${old}, ${next} TO ${table}`,
    ...finish,
  ];
}

/**
 * The statements of migration 5. Run again from its first, they end the same; records another
 * writer stores meanwhile may be counted twice or missed: upgrade with a single gateway writing.
 */
export const ROLLUP_ARRAYS_STATEMENTS: readonly string[] = ROLLUPS.flatMap(rebuild);

/**
 * End users per UTC hour (hours since the epoch), ordered by user, then hour (migration 10): the
 * whole hours of a user query's partial days. A group by end user over 24 hours merges the first
 * twenty users' states of its whole hours here (a few hundred rows) instead of summing their raw
 * rows of the day, and a series by hour with a user filter reads it whole.
 */
const USER_HOURS: ArrayRollup = {
  table: "log_rollups_user_hours",
  create: `(workspace_id String, hour UInt32, success UInt8, end_user_key String, ${STATES})
     ENGINE = AggregatingMergeTree PARTITION BY intDiv(hour, 24) ORDER BY (workspace_id, end_user_key, hour, success) ${SMALL_GRANULES}`,
  select: `SELECT workspace_id, toUInt32(intDiv(created_ms, 3600000)) AS hour, success, ${KEY("end_user")} AS end_user_key, ${FROM_LOGS}
     FROM logs GROUP BY workspace_id, hour, success, end_user_key`,
};

/**
 * Migration 10: the table, its view, then the stored logs summed a day (a partition of `logs`)
 * at a time, so no statement groups more than a day's records; each day's rows are dropped
 * before it is summed, so a run again from the start ends the same. A record another gateway
 * stores meanwhile on a day not summed yet is counted twice: upgrade with one gateway writing.
 */
export function userHourStatesStatements(logDays: readonly number[]): readonly string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${USER_HOURS.table} ${USER_HOURS.create}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${USER_HOURS.table}_mv TO ${USER_HOURS.table} AS ${USER_HOURS.select}`,
    ...logDays.flatMap((day) => [
      `ALTER TABLE ${USER_HOURS.table} DROP PARTITION ${day}`,
      `INSERT INTO ${USER_HOURS.table} ${USER_HOURS.select.replace("FROM logs", `FROM logs WHERE created_ms >= ${day * DAY_MS} AND created_ms < ${(day + 1) * DAY_MS}`)}`,
    ]),
  ];
}
