import { sql, type Kysely } from "kysely";

/**
 * Analytics rollups and the indexes the filtered logs page needs. Frozen: add `0010_…` for changes.
 *
 * `log_rollups`: per workspace, UTC hour (day for end users), dimension value and success, the records' count, sums,
 * latency extremes and two 64-bucket log-scale histograms (latency, time to first token), kept by
 * the log writer in the transaction that stores each batch (`store/log-rollup-rows.ts`). The
 * bucket bounds are written out here as they were at 0009, as the stored data depends on them.
 * Existing logs are summed in once, by SQL.
 *
 * Indexes: a filtered page is read newest first, so the filter's index ends in `id`; without it
 * the engine reads every matching row and sorts them to return 50. `(workspace_id, created_at)`
 * serves time ranges (analytics on the raw rows, `from`/`to` on the logs page).
 */
const BUCKETS = 64;
const BOUNDS = Array.from({ length: BUCKETS - 1 }, (_, i) => 2 ** (i / 3));
const bucketIds = Array.from({ length: BUCKETS }, (_, i) => String(i).padStart(2, "0"));

/** Dimension, its column, and the length of its period (end users per day: they are many). */
const DIMENSIONS: ReadonlyArray<readonly [string, string | null, "hour" | "day"]> = [
  ["all", null, "hour"],
  ["user", "end_user", "day"],
  ["model", "model", "hour"],
  ["provider", "provider", "hour"],
  ["virtual_key_id", "virtual_key_id", "hour"],
  ["status", "status", "hour"],
];

const FILTER_INDEXES = [
  { name: "logs_workspace_user_idx", column: "end_user", partial: true },
  { name: "logs_workspace_model_idx", column: "model", partial: false },
  { name: "logs_workspace_virtual_key_idx", column: "virtual_key_id", partial: true },
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  let table = db.schema
    .createTable("log_rollups")
    .addColumn("workspace_id", "text", (col) => col.notNull())
    .addColumn("hour", "text", (col) => col.notNull())
    .addColumn("dim", "text", (col) => col.notNull())
    .addColumn("value", "text", (col) => col.notNull())
    .addColumn("success", "integer", (col) => col.notNull())
    .addColumn("requests", "integer", (col) => col.notNull())
    .addColumn("cost_usd", "double precision", (col) => col.notNull())
    .addColumn("prompt_tokens", "double precision", (col) => col.notNull())
    .addColumn("completion_tokens", "double precision", (col) => col.notNull())
    .addColumn("total_tokens", "double precision", (col) => col.notNull())
    .addColumn("latency_min", "double precision", (col) => col.notNull())
    .addColumn("latency_max", "double precision", (col) => col.notNull())
    .addColumn("ttft_min", "double precision")
    .addColumn("ttft_max", "double precision");
  for (const prefix of ["lat", "ttft"]) {
    for (const id of bucketIds) table = table.addColumn(`${prefix}_${id}`, "integer", (col) => col.notNull().defaultTo(0));
  }
  await table.addPrimaryKeyConstraint("log_rollups_pk", ["workspace_id", "dim", "value", "hour", "success"]).execute();
  // Retention deletes the oldest hours across workspaces.
  await db.schema.createIndex("log_rollups_hour_idx").on("log_rollups").column("hour").execute();

  for (const [dim, column, period] of DIMENSIONS) await backfill(db, dim, column, period);

  for (const { name, column, partial } of FILTER_INDEXES) {
    await db.schema.dropIndex(name).execute();
    let index = db.schema.createIndex(name).on("logs").columns(["workspace_id", column, "id"]);
    if (partial) index = index.where(sql.ref(column), "is not", null);
    await index.execute();
  }
  await db.schema.createIndex("logs_workspace_created_idx").on("logs").columns(["workspace_id", "created_at"]).execute();
}

/** Sums the stored logs into one dimension's rollups (`all` groups by no value: PostgreSQL refuses a constant in GROUP BY). */
async function backfill(db: Kysely<unknown>, dim: string, column: string | null, period: "hour" | "day"): Promise<void> {
  const value = column === null ? sql`''` : sql`CASE WHEN ${sql.ref(column)} IS NULL THEN '' ELSE '=' || CAST(${sql.ref(column)} AS TEXT) END`;
  const hour = period === "hour" ? sql`substr(created_at, 1, 13) || ':00:00.000Z'` : sql`substr(created_at, 1, 10) || 'T00:00:00.000Z'`;
  const histogram = (source: string) =>
    bucketIds.map((_, i) => {
      const above = i === 0 ? sql`${sql.ref(source)} IS NOT NULL` : sql`${sql.ref(source)} >= ${sql.raw(String(BOUNDS[i - 1]))}`;
      const below = i === BUCKETS - 1 ? sql`1 = 1` : sql`${sql.ref(source)} < ${sql.raw(String(BOUNDS[i]))}`;
      return sql`sum(CASE WHEN ${above} AND ${below} THEN 1 ELSE 0 END)`;
    });
  const columns = [
    "workspace_id", "hour", "dim", "value", "success", "requests", "cost_usd", "prompt_tokens", "completion_tokens",
    "total_tokens", "latency_min", "latency_max", "ttft_min", "ttft_max",
    ...bucketIds.map((id) => `lat_${id}`),
    ...bucketIds.map((id) => `ttft_${id}`),
  ];
  await sql`
    INSERT INTO log_rollups (${sql.raw(columns.join(", "))})
    SELECT workspace_id, ${hour}, ${sql.lit(dim)}, ${value}, success, count(*), coalesce(sum(cost_usd), 0),
      sum(prompt_tokens), sum(completion_tokens), sum(total_tokens), min(latency_ms), max(latency_ms),
      min(time_to_first_token_ms), max(time_to_first_token_ms),
      ${sql.join([...histogram("latency_ms"), ...histogram("time_to_first_token_ms")])}
    FROM logs
    GROUP BY workspace_id, ${hour}, ${column === null ? sql`success` : sql`${value}, success`}
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("logs_workspace_created_idx").execute();
  for (const { name, column, partial } of FILTER_INDEXES) {
    await db.schema.dropIndex(name).execute();
    let index = db.schema.createIndex(name).on("logs").columns(["workspace_id", column]);
    if (partial) index = index.where(sql.ref(column), "is not", null);
    await index.execute();
  }
  await db.schema.dropTable("log_rollups").execute();
}
