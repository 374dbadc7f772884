import { PostgresAdapter, sql, type Kysely } from "kysely";

/**
 * PostgreSQL only: end users summed per hour, with day rows, like every other dimension (the
 * embedded store keeps them per day). Frozen: add `0029_…` for changes.
 *
 * A range's partial days at either end were read from the raw rows for groups by end user, a cost
 * that grew with the store; with hour rows only its partial hours are. The user rows summed so far
 * are day rows: they become `day:user` rows, and `log_rollup_progress.user_hours_from` records the
 * hour from which user hour rows exist (`built_until` now; null when there were none, as in a new
 * store). Reads take the hours before it from the raw rows, and the build adds the rest of today
 * to today's `day:user` row when it closes the day (`addDayRows`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await db.schema.alterTable("log_rollup_progress").addColumn("user_hours_from", "text").execute();
  await sql`
    UPDATE log_rollup_progress SET user_hours_from = built_until
    WHERE EXISTS (SELECT 1 FROM log_rollups WHERE dim = 'user')`.execute(db);
  await sql`UPDATE log_rollups SET dim = 'day:user' WHERE dim = 'user'`.execute(db);
}

/** The summed columns as they are at 0028. */
const bucketIds = Array.from({ length: 64 }, (_, i) => String(i).padStart(2, "0"));
const SUMS = [
  "requests", "cost_usd", "cache_hits", "semantic_cache_hits", "cost_saved_usd", "prompt_tokens", "completion_tokens", "total_tokens",
  ...bucketIds.map((id) => `lat_${id}`),
  ...bucketIds.map((id) => `ttft_${id}`),
];
const keep = (column: string, pick: "least" | "greatest") =>
  `${column} = CASE WHEN excluded.${column} IS NULL THEN log_rollups.${column} WHEN log_rollups.${column} IS NULL THEN excluded.${column} ELSE ${pick}(log_rollups.${column}, excluded.${column}) END`;

/**
 * Back to user day rows: the closed days' `day:user` rows become `user` rows, the days not closed
 * yet get theirs summed from their hour rows (added to the row the upgrade's day may already have).
 */
export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`UPDATE log_rollups SET dim = 'user:hour' WHERE dim = 'user'`.execute(db);
  await sql`UPDATE log_rollups SET dim = 'user' WHERE dim = 'day:user'`.execute(db);
  const columns = ["workspace_id", "dim", "value", "hour", "success", ...SUMS, "latency_min", "ttft_min", "latency_max", "ttft_max"];
  const select = [
    "workspace_id", "'user'", "value", "substr(hour, 1, 10) || 'T00:00:00.000Z'", "success",
    ...SUMS.map((column) => `sum(${column})`),
    "min(latency_min)", "min(ttft_min)", "max(latency_max)", "max(ttft_max)",
  ];
  const merge = [...SUMS.map((c) => `${c} = log_rollups.${c} + excluded.${c}`), keep("latency_min", "least"), keep("ttft_min", "least"), keep("latency_max", "greatest"), keep("ttft_max", "greatest")];
  await sql`
    INSERT INTO log_rollups (${sql.raw(columns.join(", "))})
    SELECT ${sql.raw(select.join(", "))} FROM log_rollups
    WHERE dim = 'user:hour' AND hour >= (SELECT substr(built_until, 1, 10) || 'T00:00:00.000Z' FROM log_rollup_progress)
    GROUP BY workspace_id, value, substr(hour, 1, 10), success
    ON CONFLICT (workspace_id, dim, value, hour, success) DO UPDATE SET ${sql.raw(merge.join(", "))}`.execute(db);
  await sql`DELETE FROM log_rollups WHERE dim = 'user:hour'`.execute(db);
  await db.schema.alterTable("log_rollup_progress").dropColumn("user_hours_from").execute();
}
