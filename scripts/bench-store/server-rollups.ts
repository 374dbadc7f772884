import { sql, type RawBuilder } from "kysely";
import { HISTOGRAM_BUCKETS } from "../../src/analytics/latency-histogram.ts";
import { readDeclaredKeys } from "../../src/store/declared-keys.ts";
import { idRangeOf } from "../../src/store/log-id-bound.ts";
import { MAX_VALUES_PER_PERIOD } from "../../src/store/log-rollup-bound.ts";
import { addDayRows } from "../../src/store/log-rollup-build.ts";
import { ROLLUP_COLUMNS } from "../../src/store/log-rollup-rows.ts";
import { bucketSql } from "../../src/store/log-rollup-sql.ts";
import type { Store } from "../../src/store/open-store.ts";

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const bucketIds = Array.from({ length: HISTOGRAM_BUCKETS }, (_, i) => i);

/**
 * PostgreSQL, for the bench's fill: the rollups of every log in `[fromHour, untilHour)` summed in
 * the server (`INSERT … SELECT … GROUP BY`, a UTC day a statement, `workers` days at once on
 * their own connections), then `built_until` moved to `untilHour`: the rows the store's background
 * build (`log-rollup-build.ts`) would have written hour by hour, without reading the logs back
 * into JavaScript. Hour rows of every dimension and declared key and, for each day that ends by
 * `untilHour`, the `day:` rows (by the build's own statement). The
 * rollups of the range must be empty. The bound on a declared key's values per period is not
 * applied: this throws when a period holds more than it keeps (the bench's keys hold a few).
 */
export async function serverRollups(store: Store, fromHourMs: number, untilHourMs: number, workers = 2): Promise<void> {
  const declared = await readDeclaredKeys(store.db);
  const days: number[] = [];
  for (let day = Math.floor(fromHourMs / DAY_MS) * DAY_MS; day < untilHourMs; day += DAY_MS) days.push(day);
  const next = async (): Promise<void> => {
    for (let day = days.shift(); day !== undefined; day = days.shift()) {
      const from = Math.max(day, fromHourMs);
      const until = Math.min(day + DAY_MS, untilHourMs);
      await store.db.transaction().execute(async (trx) => {
        // A day's keys sorted in memory, not in temporary files; no JIT compilation for a statement run once a day.
        await sql`SET LOCAL work_mem = '256MB'`.execute(trx);
        await sql`SET LOCAL jit = off`.execute(trx);
        await daySums(from, until, declared).execute(trx);
        if (day + DAY_MS <= untilHourMs) await addDayRows(trx, iso(day), iso(day + DAY_MS));
      });
    }
  };
  await Promise.all(Array.from({ length: workers }, next));
  const { rows } = await sql<{ crowded: number }>`
    SELECT count(*)::int AS crowded FROM (SELECT 1 FROM log_rollups WHERE dim LIKE 'meta:%' GROUP BY workspace_id, dim, hour HAVING count(DISTINCT value) > ${sql.lit(MAX_VALUES_PER_PERIOD)}) AS c`.execute(store.db);
  if (rows[0]!.crowded > 0) throw new Error(`serverRollups: ${rows[0]!.crowded} periods hold more declared values than the rollups keep`);
  await store.db.updateTable("log_rollup_progress").set({ built_until: iso(untilHourMs) }).execute();
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The statement summing the rows of `[fromMs, untilMs)` (whole hours of one UTC day) into hour rows. */
export function daySums(fromMs: number, untilMs: number, declared: ReadonlyMap<string, readonly string[]>): RawBuilder<unknown> {
  const ids = idRangeOf(iso(fromMs), iso(untilMs));
  // Each declared key, with the workspaces that declared it.
  const byKey = new Map<string, string[]>();
  for (const [workspace, keys] of declared) for (const key of keys) byKey.set(key, [...(byKey.get(key) ?? []), workspace]);
  const keyed: RawBuilder<unknown>[] = [
    sql`SELECT 'all', '', r.hour`,
    sql`SELECT 'model', '=' || r.model, r.hour`,
    sql`SELECT 'provider', '=' || r.provider, r.hour`,
    sql`SELECT 'virtual_key_id', coalesce('=' || r.virtual_key_id, ''), r.hour`,
    sql`SELECT 'status', '=' || r.status, r.hour`,
    sql`SELECT 'user', coalesce('=' || r.end_user, ''), r.hour`,
    ...[...byKey].map(
      ([key, workspaces]) =>
        sql`SELECT ${sql.lit(`meta:${key}`)}, coalesce('=' || (r.meta ->> ${sql.lit(key)}), ''), r.hour WHERE r.workspace_id IN (${sql.join(workspaces.map((w) => sql.lit(w)))})`,
    ),
  ];
  const meta = byKey.size > 0 ? sql`CASE WHEN workspace_id IN (${sql.join([...declared.keys()].map((w) => sql.lit(w)))}) THEN metadata::json END` : sql`NULL::json`;
  const histogram = (prefix: string, bucket: string) =>
    bucketIds.map((i) => sql.raw(`coalesce(sum(n) FILTER (WHERE ${bucket} = ${i}), 0) AS ${prefix}_${String(i).padStart(2, "0")}`));
  // Grouped twice: by key and latency buckets first (a few rows a key), then by key, where each of
  // the 128 histogram columns is a filtered sum over those few rows rather than over every log.
  return sql`
    WITH r AS MATERIALIZED (
      SELECT workspace_id, substr(created_at, 1, 13) || ':00:00.000Z' AS hour,
        success, latency_ms, time_to_first_token_ms AS ttft, cost_usd, cache_status, cost_saved_usd, prompt_tokens, completion_tokens,
        total_tokens, end_user, model, provider, virtual_key_id, status, ${meta} AS meta,
        ${bucketSql(sql`latency_ms`)} AS lb, ${bucketSql(sql`time_to_first_token_ms`)} AS tb
      FROM logs
      WHERE id >= ${ids.from!} AND id < ${ids.to!} AND created_at >= ${iso(fromMs)} AND created_at < ${iso(untilMs)}
    ), g AS (
      SELECT r.workspace_id, k.dim, k.value, k.period, r.success, r.lb, r.tb, count(*) AS n,
        coalesce(sum(r.cost_usd), 0) AS cost_usd, count(*) FILTER (WHERE r.cache_status = 'HIT') AS cache_hits,
        count(*) FILTER (WHERE r.cache_status = 'SEMANTIC_HIT') AS semantic_cache_hits, coalesce(sum(r.cost_saved_usd), 0) AS cost_saved_usd,
        sum(r.prompt_tokens) AS prompt_tokens, sum(r.completion_tokens) AS completion_tokens, sum(r.total_tokens) AS total_tokens,
        min(r.latency_ms) AS latency_min, min(r.ttft) AS ttft_min, max(r.latency_ms) AS latency_max, max(r.ttft) AS ttft_max
      FROM r CROSS JOIN LATERAL (${sql.join(keyed, sql` UNION ALL `)}) AS k(dim, value, period)
      GROUP BY 1, 2, 3, 4, 5, 6, 7
    )
    INSERT INTO log_rollups (${sql.raw(ROLLUP_COLUMNS.join(", "))})
    SELECT workspace_id, dim, value, period, success, sum(n), sum(cost_usd), sum(cache_hits), sum(semantic_cache_hits), sum(cost_saved_usd),
      sum(prompt_tokens), sum(completion_tokens), sum(total_tokens), ${sql.join([...histogram("lat", "lb"), ...histogram("ttft", "tb")])},
      min(latency_min), min(ttft_min), max(latency_max), max(ttft_max)
    FROM g GROUP BY 1, 2, 3, 4, 5`;
}
