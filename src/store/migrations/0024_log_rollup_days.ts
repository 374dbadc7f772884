import { PostgresAdapter, sql, type Kysely } from "kysely";

/**
 * PostgreSQL only: day rows in `log_rollups` for the hourly dimensions (`dim` = `day:all`,
 * `day:model`, `day:provider`, `day:virtual_key_id`, `day:status`; `hour` the day's start), so a
 * range reads its whole days one row per key and only its edge hours from hour rows. Frozen: add
 * `0025_…` for changes.
 *
 * From now on the background build writes a day's rows when it closes the day's last hour, and
 * the writer adds records landing in a built day (`store/log-rollup-build.ts`). Here the days
 * already wholly built (before the day of `built_until`) get theirs, summed from their hour rows.
 * The columns are written out as they are at 0024.
 */
const bucketIds = Array.from({ length: 64 }, (_, i) => String(i).padStart(2, "0"));
const SUMS = [
  "requests", "cost_usd", "cache_hits", "semantic_cache_hits", "cost_saved_usd", "prompt_tokens", "completion_tokens", "total_tokens",
  ...bucketIds.map((id) => `lat_${id}`),
  ...bucketIds.map((id) => `ttft_${id}`),
];
const HOURLY = ["all", "model", "provider", "virtual_key_id", "status"];

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  const columns = ["workspace_id", "dim", "value", "hour", "success", ...SUMS, "latency_min", "ttft_min", "latency_max", "ttft_max"];
  const select = [
    "workspace_id", "'day:' || dim", "value", "substr(hour, 1, 10) || 'T00:00:00.000Z'", "success",
    ...SUMS.map((column) => `sum(${column})`),
    "min(latency_min)", "min(ttft_min)", "max(latency_max)", "max(ttft_max)",
  ];
  await sql`
    INSERT INTO log_rollups (${sql.raw(columns.join(", "))})
    SELECT ${sql.raw(select.join(", "))} FROM log_rollups
    WHERE dim IN (${sql.join(HOURLY)})
      AND hour < (SELECT substr(built_until, 1, 10) || 'T00:00:00.000Z' FROM log_rollup_progress)
    GROUP BY workspace_id, dim, value, substr(hour, 1, 10), success`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`DELETE FROM log_rollups WHERE dim LIKE 'day:%'`.execute(db);
}
