import { logsColumnDefinitions } from "./clickhouse-columns.ts";
import type { ClickHouseConnection } from "./clickhouse-connection.ts";
import { cascadeStatements, CASCADE_VIEW } from "./clickhouse-rollup-cascade.ts";
import { userHoursStatements } from "./clickhouse-user-hours.ts";
import {
  KEY_SETS_STATEMENTS,
  ROLLUP_ARRAYS_STATEMENTS,
  userDaysInSmallerGranulesStatements,
  userDaysStatements,
  userHourStatesStatements,
} from "./clickhouse-rollup-arrays.ts";

/**
 * The ClickHouse log store's migrations, applied in order once each; `schema_migrations` records
 * which ran. A migration is a list of statements (ClickHouse runs one per request and has no
 * transactional DDL, so each statement is written to be safe to run again: `IF NOT EXISTS`).
 * The SQL runs on ClickHouse 18.16 and on current releases: no Map, no TTL, no codecs.
 */
export interface ClickHouseMigration {
  version: number;
  name: string;
  /**
   * The statements, or a function of the server as the migration finds it: its release (`18.16.1`),
   * for what releases run differently, and the database's tables, for what depends on them.
   */
  statements: readonly string[] | ((server: ClickHouseServerState) => readonly string[]);
}

export interface ClickHouseServerState {
  version: string;
  tables: ReadonlySet<string>;
  /** The UTC days (day numbers) `logs` holds records of: its partitions. */
  logDays: readonly number[];
  /** The columns `logs` has now. */
  logColumns: ReadonlySet<string>;
}

/** A migration's statements on this connection's server and database, as they are now. */
export async function statementsFor(migration: ClickHouseMigration, connection: ClickHouseConnection): Promise<readonly string[]> {
  if (typeof migration.statements !== "function") return migration.statements;
  const tables = await connection.rows<{ name: string }>("SELECT name FROM system.tables WHERE database = currentDatabase()");
  const days = await connection.rows<{ partition: string }>(
    "SELECT DISTINCT partition FROM system.parts WHERE database = currentDatabase() AND table = 'logs' AND active ORDER BY partition",
  );
  const logDays = days.map((day) => Number(day.partition)).filter(Number.isInteger);
  const columns = await connection.rows<{ name: string }>("SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'logs'");
  return migration.statements({ version: connection.version, tables: new Set(tables.map((table) => table.name)), logDays, logColumns: new Set(columns.map((column) => column.name)) });
}

/**
 * Times are cut in arithmetic on epoch numbers, never with the date functions, which follow the
 * server's time zone: a UTC day is `intDiv(ms, 86400000)` whatever the server's zone is.
 */
const DAY_MS = 86_400_000;

/**
 * The rollups of migrations 2 to 4 (migration 5 rebuilds them with arrays: clickhouse-rollup-arrays.ts).
 * What every rollup row keeps: counts, sums, extremes and the histograms as `sumMap` states of
 * bucket → count. A record adds one key to a map: far less work per inserted row than adding a
 * 64-element array, and a histogram holds only the buckets that occur.
 * States take no Nullable argument (engines differ in how they type one): a null cost adds 0, and
 * the time to first token's extremes are kept only over the records that have one (`-If`).
 */
const ROLLUP_STATES = `
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
  latency AggregateFunction(sumMap, Array(UInt8), Array(UInt64)),
  ttft AggregateFunction(sumMap, Array(UInt8), Array(UInt64))`;

/** A record's bucket of a histogram as `sumMap` arguments (none when the value is missing). */
const ONE_COUNT = (bucket: string) =>
  `if(isNull(${bucket}), emptyArrayUInt8(), [assumeNotNull(${bucket})]), if(isNull(${bucket}), emptyArrayUInt64(), [toUInt64(1)])`;

const ROLLUP_SELECT = `
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
  sumMapState([latency_bucket], [toUInt64(1)]) AS latency,
  sumMapState(${ONE_COUNT("ttft_bucket")}) AS ttft`;

/**
 * A rollup key column: `''` for null, else `=` and the value (the main store's rollup encoding,
 * `encodeRollupValue`), so null and the empty string stay apart in a key that cannot be Nullable.
 */
const KEY = (column: string) => `if(isNull(${column}), '', concat('=', assumeNotNull(${column})))`;

/** A rollup table, and the query over `logs` that feeds it: its view on every insert, and a rebuild. */
interface Rollup {
  table: string;
  create: string;
  select: string;
}

const ROLLUPS: readonly Rollup[] = [
  {
    // One row per hour and value of one dimension (and one for all records): a total, a series,
    // or a filter or group on one dimension reads few rows.
    table: "log_rollups_hourly_dims",
    create: `(workspace_id String, dim String, value String, hour DateTime, success UInt8, ${ROLLUP_STATES})
       ENGINE = AggregatingMergeTree PARTITION BY intDiv(toUInt32(hour), 86400)
       ORDER BY (workspace_id, dim, value, hour, success)`,
    select: `SELECT workspace_id, dim_value.1 AS dim, dim_value.2 AS value, toDateTime(intDiv(created_ms, 3600000) * 3600) AS hour, success, ${ROLLUP_SELECT}
       FROM logs ARRAY JOIN [('all', ''), ('model', ${KEY("model")}), ('provider', ${KEY("provider")}),
         ('virtual_key_id', ${KEY("virtual_key_id")}), ('status', concat('=', toString(status)))] AS dim_value
       GROUP BY workspace_id, dim, value, hour, success`,
  },
  {
    // Every combination of model, provider, virtual key and status per hour: queries on several of them.
    table: "log_rollups_hourly",
    create: `(workspace_id String, hour DateTime, success UInt8,
         model_key String, provider_key String, virtual_key_id_key String, status Int64, ${ROLLUP_STATES})
       ENGINE = AggregatingMergeTree PARTITION BY intDiv(toUInt32(hour), 86400)
       ORDER BY (workspace_id, hour, success, model_key, provider_key, virtual_key_id_key, status)`,
    select: `SELECT workspace_id, toDateTime(intDiv(created_ms, 3600000) * 3600) AS hour, success,
         ${KEY("model")} AS model_key, ${KEY("provider")} AS provider_key, ${KEY("virtual_key_id")} AS virtual_key_id_key, status, ${ROLLUP_SELECT}
       FROM logs GROUP BY workspace_id, hour, success, model_key, provider_key, virtual_key_id_key, status`,
  },
  {
    table: "log_rollups_daily_users",
    create: `(workspace_id String, day UInt32, success UInt8, end_user_key String, ${ROLLUP_STATES})
       ENGINE = AggregatingMergeTree PARTITION BY intDiv(day, 30)
       ORDER BY (workspace_id, day, success, end_user_key)`,
    select: `SELECT workspace_id, toUInt32(intDiv(created_ms, ${DAY_MS})) AS day, success, ${KEY("end_user")} AS end_user_key, ${ROLLUP_SELECT}
       FROM logs GROUP BY workspace_id, day, success, end_user_key`,
  },
];

/**
 * One row per hour and metadata pair (key and value) of the records holding it: metadata filters
 * and groups by a metadata key read these instead of every record's `meta` arrays. Every key is
 * kept, declared or not; a record adds one row per pair it holds.
 */
const METADATA_ROLLUP: Rollup = {
  table: "log_rollups_hourly_meta",
  create: `(workspace_id String, key String, value String, hour DateTime, success UInt8, ${ROLLUP_STATES})
       ENGINE = AggregatingMergeTree PARTITION BY intDiv(toUInt32(hour), 86400)
       ORDER BY (workspace_id, key, value, hour, success)`,
  select: `SELECT workspace_id, meta.key AS key, meta.value AS value, toDateTime(intDiv(created_ms, 3600000) * 3600) AS hour, success, ${ROLLUP_SELECT}
       FROM logs ARRAY JOIN meta
       GROUP BY workspace_id, key, value, hour, success`,
};

/** A rollup's table and the view that feeds it from every insert into `logs`. */
const createRollup = ({ table, create, select }: Rollup): string[] => [
  `CREATE TABLE IF NOT EXISTS ${table} ${create}`,
  `CREATE MATERIALIZED VIEW IF NOT EXISTS ${table}_mv TO ${table} AS ${select}`,
];

/**
 * Rebuilds a rollup in a new shape from the stored logs: its view and table dropped, created
 * again, and filled from `logs`. Run again from its first statement, it ends the same. Records
 * another writer stores while it runs may be counted twice or missed: stop other writers first.
 */
const rebuildRollup = (rollup: Rollup): string[] => [
  `DROP TABLE IF EXISTS ${rollup.table}_mv`,
  `DROP TABLE IF EXISTS ${rollup.table}`,
  ...createRollup(rollup),
  `INSERT INTO ${rollup.table} ${rollup.select}`,
];

/**
 * A rebuild of the combinations rollup run again after migration 7 (a start that stopped midway,
 * or a rebuild by hand) first drops the view chained on it: from release 19 that view reads every
 * insert into the rollup's table, the rebuild's own included, and would sum them into the
 * per-dimension rollup, in the old shape. Migration 7, run after, chains it again.
 */
const DROP_CHAINED_VIEW = `DROP TABLE IF EXISTS ${CASCADE_VIEW}`;

export const CLICKHOUSE_MIGRATIONS: readonly ClickHouseMigration[] = [
  {
    version: 1,
    name: "logs",
    statements: [
      // Ordered by (workspace_id, id): a UUIDv7 id starts with its millisecond, so this is the
      // workspace's records in time order. ReplacingMergeTree folds a row stored twice on merge.
      // Granules of 2,048 rows (not 8,192): a logs page or a log by id reads a quarter as much.
      `CREATE TABLE IF NOT EXISTS logs (${logsColumnDefinitions().join(", ")})
       ENGINE = ReplacingMergeTree PARTITION BY intDiv(created_ms, ${DAY_MS}) ORDER BY (workspace_id, id)
       SETTINGS index_granularity = 2048`,
      `CREATE TABLE IF NOT EXISTS feedback (
         id String, organisation_id String, workspace_id String, owner_id Nullable(String), updated_by Nullable(String),
         trace_id String, value Float64, weight Float64, meta Nested(key String, value String), created_ms Int64)
       ENGINE = ReplacingMergeTree PARTITION BY intDiv(created_ms, ${30 * DAY_MS}) ORDER BY (workspace_id, trace_id, id)`,
    ],
  },
  {
    version: 2,
    name: "rollups",
    statements: ROLLUPS.flatMap(createRollup),
  },
  {
    // The rollups in the shape above (histograms as bucket → count maps), rebuilt from the logs.
    version: 3,
    name: "rollup histograms as maps",
    statements: [DROP_CHAINED_VIEW, ...ROLLUPS.flatMap(rebuildRollup)],
  },
  {
    version: 4,
    name: "metadata rollup",
    statements: rebuildRollup(METADATA_ROLLUP),
  },
  {
    // The rollups again, histograms as arrays, in small granules (clickhouse-rollup-arrays.ts).
    version: 5,
    name: "rollup histograms as arrays",
    statements: [DROP_CHAINED_VIEW, ...ROLLUP_ARRAYS_STATEMENTS],
  },
  {
    // Per hour and set of metadata keys: the null group of a metadata group (clickhouse-rollup-arrays.ts).
    version: 6,
    name: "metadata key sets rollup",
    statements: KEY_SETS_STATEMENTS,
  },
  {
    // The per-dimension rollup summed from the combinations rollup's rows (clickhouse-rollup-cascade.ts).
    version: 7,
    name: "per-dimension rollup chained on the combinations rollup",
    statements: ({ version }) => cascadeStatements(version),
  },
  {
    // End users' day rows ordered by user, then day (clickhouse-rollup-arrays.ts).
    version: 8,
    name: "end-user rollup ordered by user",
    statements: ({ tables }) => userDaysStatements(tables),
  },
  {
    // End users' records counted per hour, for listings filtered on a user (clickhouse-user-hours.ts).
    version: 9,
    name: "end users' hours",
    statements: ({ logDays }) => userHoursStatements(logDays),
  },
  {
    // End users' hour rows with every state, for the whole hours of a user query's partial days (clickhouse-rollup-arrays.ts).
    version: 10,
    name: "end-user rollup by the hour",
    statements: ({ logDays }) => userHourStatesStatements(logDays),
  },
  {
    // End users' day states in granules of 64 rows, for merging the first groups' (clickhouse-rollup-arrays.ts).
    version: 11,
    name: "end-user day rollup in smaller granules",
    statements: ({ tables }) => userDaysInSmallerGranulesStatements(tables),
  },
  {
    // The experiment and variant of each request (a store made since has them from migration 1,
    // whose columns follow the log fields). ClickHouse 18.16 has no ADD COLUMN IF NOT EXISTS.
    version: 12,
    name: "experiment columns",
    statements: ({ logColumns }) =>
      ["experiment_id", "experiment_variant"].filter((column) => !logColumns.has(column)).map((column) => `ALTER TABLE logs ADD COLUMN ${column} Nullable(String)`),
  },
  {
    // The searches a provider ran and bills apart from tokens.
    version: 13,
    name: "web search count",
    statements: ({ logColumns }) => (logColumns.has("web_searches") ? [] : ["ALTER TABLE logs ADD COLUMN web_searches Int64 DEFAULT 0"]),
  },
];
