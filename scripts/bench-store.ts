/**
 * `npm run bench:store`: fills a fresh embedded store file with realistic logs (1,000,000 rows
 * over 30 days by default, through the logs repository, so the rollups are kept as the log
 * writer keeps them), then times the logs page and the analytics routes through the HTTP app.
 * Environment: BENCH_STORE_ROWS (default 1000000), BENCH_STORE_RUNS (default 30),
 * BENCH_STORE_URL (a `file:` store to keep: filled when it holds no logs, reused as it is otherwise).
 * See docs/benchmark.md ("Store: logs page and analytics").
 */
import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configWith } from "../src/config.ts";
import { createGateway } from "../src/gateway.ts";
import { Kysely, Migrator } from "kysely";
import { pickDialect } from "../src/store/dialects/pick-dialect.ts";
import { toRollupRows } from "../src/store/log-rollup-rows.ts";
import { toLogRow, toMetadataRows } from "../src/store/log-rows.ts";
import { staticMigrationProvider } from "../src/store/migrations/index.ts";
import type { Database } from "../src/store/schema.ts";
import { upsertRollups } from "../src/store/log-rollup-sql.ts";
import { openStore } from "../src/store/open-store.ts";
import { benchClickHouse } from "./bench-store/clickhouse.ts";
import { generate, MODELS, WORKSPACES } from "./bench-store/fill.ts";

const DAY_MS = 86_400_000;
const rows = Number(process.env.BENCH_STORE_ROWS ?? 1_000_000);
const runs = Number(process.env.BENCH_STORE_RUNS ?? 30);
const log = (line: string): void => console.log(`bench:store: ${line}`);

/**
 * Bulk load as an upgrade would meet it: the schema as of 0007, the logs and metadata inserted
 * in large transactions, then migration 0009 sums them into the rollups and builds the indexes
 * (which also times that migration on a million rows). Batches the log writer stores later keep
 * the rollups themselves; the analytics tests check both give the same sums.
 */
async function fill(url: string, end: number): Promise<void> {
  const dialect = await pickDialect(url);
  const db = new Kysely<Database>({ dialect: dialect.dialect });
  await new Migrator({ db, provider: staticMigrationProvider }).migrateTo("0007_log_attempts");
  const started = performance.now();
  let written = 0;
  for (const batch of generate(rows, end - 30 * DAY_MS, end, 10_000)) {
    await db.transaction().execute(async (trx) => {
      const logRows = batch.map(toLogRow);
      for (let i = 0; i < logRows.length; i += 500) await trx.insertInto("logs").values(logRows.slice(i, i + 500)).execute();
      const metadata = batch.flatMap(toMetadataRows);
      for (let i = 0; i < metadata.length; i += 2_000) await trx.insertInto("log_metadata").values(metadata.slice(i, i + 2_000)).execute();
    });
    written += batch.length;
    if (written % 200_000 === 0) log(`${written.toLocaleString("en")} rows, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  await db.destroy();
  const seconds = (performance.now() - started) / 1000;
  log(`inserted ${rows.toLocaleString("en")} rows in ${seconds.toFixed(1)} s (${Math.round(rows / seconds).toLocaleString("en")} rows/s)`);
  const migrating = performance.now();
  const store = await openStore(url);
  log(`migration 0009 (rollups summed from the logs, indexes built) and ANALYZE: ${((performance.now() - migrating) / 1000).toFixed(1)} s`);

  // The log writer's own batch (200 records), into a workspace the queries never read.
  const probe = [...generate(4_000, end - 1000, end, 200)].map((batch) => batch.map((r) => ({ ...r, workspaceId: "ws-writer-probe" })));
  const whole: number[] = [];
  const rollupsOnly: number[] = [];
  for (const batch of probe) {
    let t = performance.now();
    await store.logs.insertBatch(batch);
    whole.push(performance.now() - t);
    t = performance.now();
    await store.db.transaction().execute((trx) => upsertRollups(trx, toRollupRows(batch)));
    rollupsOnly.push(performance.now() - t);
  }
  log(`writer batch of 200: p50 ${percentile(whole, 0.5).toFixed(1)} ms stored with rollups; the rollup upsert alone p50 ${percentile(rollupsOnly, 0.5).toFixed(1)} ms`);
  await store.close();
}

function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

async function main(): Promise<void> {
  // BENCH_STORE_TARGET=clickhouse: the ClickHouse log store (scripts/bench-store/clickhouse.ts).
  if (process.env.BENCH_STORE_TARGET === "clickhouse") return benchClickHouse();
  const temporary = process.env.BENCH_STORE_URL === undefined;
  const url = process.env.BENCH_STORE_URL ?? `file:${join(tmpdir(), `bench-store-${randomBytes(4).toString("hex")}`, "gateway.db")}`;
  let end = Math.floor(Date.now() / 60_000) * 60_000;
  const existing = await openStore(url).catch(() => null);
  const newest = existing && (await existing.logs.list({ workspaceId: WORKSPACES[0], limit: 1 })).records[0];
  await existing?.close();
  if (newest) end = Math.ceil(Date.parse(newest.createdAt) / 60_000) * 60_000;
  else await fill(url, end);

  const adminKey = `bench-admin-${randomBytes(12).toString("hex")}`;
  const gateway = await createGateway(
    configWith({ GATEWAY_DATABASE_URL: url, GATEWAY_ADMIN_KEY: adminKey, GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString("base64"), GATEWAY_QUIET: true }),
  );
  const defaultRows = await gateway.deps.store.logs.count(WORKSPACES[0]);
  log(`measuring workspace ${WORKSPACES[0]} (${defaultRows.toLocaleString("en")} rows), ${runs} runs per query`);
  const from = new Date(end - 30 * DAY_MS).toISOString();
  const to = new Date(end).toISOString();
  const month = `from=${from}&to=${to}`;
  const [, haiku] = MODELS[4]!;
  const queries: Array<[string, string]> = [
    ["logs page, unfiltered", "/v1/logs"],
    ["logs page, user (busiest)", "/v1/logs?user=user-0"],
    ["logs page, user (rare)", "/v1/logs?user=user-290"],
    ["logs page, model", `/v1/logs?model=${haiku}`],
    ["logs page, metadata[team]", "/v1/logs?metadata[team]=team-7"],
    ["logs page, metadata[env] + model", `/v1/logs?metadata[env]=staging&model=${haiku}`],
    ["summary 30 d", `/v1/analytics/summary?${month}`],
    ["summary 30 d, model", `/v1/analytics/summary?${month}&model=${haiku}`],
    ["summary 30 d, user", `/v1/analytics/summary?${month}&user=user-0`],
    ["summary 24 h (default range)", "/v1/analytics/summary"],
    ["timeseries 30 d, day", `/v1/analytics/timeseries?${month}`],
    ["timeseries 7 d, hour", `/v1/analytics/timeseries?from=${new Date(end - 7 * DAY_MS).toISOString()}&to=${to}`],
    ["timeseries 2 h, minute (raw)", `/v1/analytics/timeseries?from=${new Date(end - 2 * 3_600_000).toISOString()}&to=${to}`],
    ["groups 30 d by user", `/v1/analytics/groups?${month}&by=user`],
    ["groups 30 d by model", `/v1/analytics/groups?${month}&by=model`],
    ["groups 30 d by virtual_key_id", `/v1/analytics/groups?${month}&by=virtual_key_id`],
    ["summary 30 d, metadata filter (raw)", `/v1/analytics/summary?${month}&metadata[team]=team-7`],
    ["groups 30 d by metadata team (raw)", `/v1/analytics/groups?${month}&by=metadata&metadata_key=team`],
    ["groups 24 h by metadata team (raw)", "/v1/analytics/groups?by=metadata&metadata_key=team"],
  ];
  const table = ["| query | p50 ms | p95 ms | rows/groups |", "|---|---:|---:|---:|"];
  for (const [name, path] of queries) {
    const timings: number[] = [];
    let size = 0;
    for (let i = 0; i < runs + 3; i += 1) {
      const started = performance.now();
      const response = await gateway.app.request(path, { headers: { "x-gateway-api-key": adminKey } });
      const body = (await response.json()) as { data?: unknown[]; requests?: number };
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
      if (i >= 3) timings.push(performance.now() - started);
      size = body.data?.length ?? body.requests ?? 0;
    }
    table.push(`| ${name} | ${percentile(timings, 0.5).toFixed(1)} | ${percentile(timings, 0.95).toFixed(1)} | ${size.toLocaleString("en")} |`);
  }
  await gateway.drain();
  console.log(table.join("\n"));
  if (temporary) await rm(join(url.slice("file:".length), ".."), { recursive: true, force: true });
}

await main();
