/**
 * `npm run bench:store -- [--url URL] [--rows N] [--runs N] [--ingest N] [--no-retention]`:
 * fills a store (migrated to the latest schema) with realistic logs over 30 days, times every
 * log query of the dashboard and the API through the HTTP app, the log writer's ingest, and
 * retention of the oldest day.
 * - `--url`: `postgres://…` (tables in the connection's current schema: name an empty one, e.g.
 *   `?options=-c%20search_path%3Dbench`) or `file:…`; default a temporary `file:` store.
 *   A store that already holds the bench's logs is reused as it is, not filled again.
 * - `--rows`: logs to fill (default 1,000,000). `--runs`: timed runs per query (default 20).
 * - `--ingest`: records the ingest measure writes through the logs repository (default 100,000).
 * - `--offer`: records per second offered to the log writer for `--offer-seconds` (default 25,000
 *   for 30 s; 0 skips it): whether the writer, batching as the gateway does, keeps pace.
 * - `--no-retention`: keep the oldest day (the retention measure deletes it).
 * See docs/benchmark-store.md ("Store: logs page and analytics").
 */
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { configWith } from "../src/config.ts";
import { createGateway } from "../src/gateway.ts";
import type { LogEntry } from "../src/logging/log-entry.ts";
import { LogWriter } from "../src/logging/log-writer.ts";
import type { LogSink } from "../src/logging/log-sink.ts";
import type { LogRecord } from "../src/records/log-record.ts";
import { idBound } from "../src/store/log-id-bound.ts";
import { droppedDaysEnd, ensureDayPartitions } from "../src/store/log-partitions.ts";
import { BUILD_GRACE_MS, buildClosedRollupHours, readBuiltUntil } from "../src/store/log-rollup-build.ts";
import { deleteExpiredStep } from "../src/store/log-retention.ts";
import { openStore, type Store } from "../src/store/open-store.ts";
import { analyse, bulkLoad } from "./bench-store/bulk-load.ts";
import { benchClickHouse } from "./bench-store/clickhouse.ts";
import { DECLARED_KEYS, generate, WORKSPACES } from "./bench-store/fill.ts";
import { postgresCpuSeconds } from "./bench-store/postgres-cpu.ts";
import { serverFill } from "./bench-store/server-fill.ts";
import { serverRollups } from "./bench-store/server-rollups.ts";
import { dashboardQueries } from "./bench-store/queries.ts";

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Rows per server-side fill statement (PostgreSQL): one transaction each. */
const SERVER_FILL_CHUNK = 250_000;
/** PostgreSQL: fill statements, index builds and rollup days run this many at once, each on its own connection (the machine has two cores). */
const SERVER_WORKERS = 2;
const { values: args } = parseArgs({
  options: {
    url: { type: "string" },
    rows: { type: "string", default: "1000000" },
    runs: { type: "string", default: "20" },
    ingest: { type: "string", default: "100000" },
    offer: { type: "string", default: "25000" },
    "offer-seconds": { type: "string", default: "30" },
    "no-retention": { type: "boolean", default: false },
  },
});
const rows = Number(args.rows);
const runs = Number(args.runs);
const ingestRows = Number(args.ingest);
const offeredPerSecond = Number(args.offer);
const offerSeconds = Number(args["offer-seconds"]);
const log = (line: string): void => console.log(`bench:store: ${line} (load ${loadAverage()})`);

/** The machine's load average: the figures are only as quiet as the machine was. */
function loadAverage(): string {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return "n/a";
  }
}

function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

async function fill(store: Store, end: number): Promise<void> {
  const start = end - 30 * DAY_MS;
  // PostgreSQL: an empty store whose rollups are built from the fill's first hour on, as if the
  // gateway had run since then: the rows are generated in the server (`server-fill.ts`), and
  // their closed hours summed there too (`server-rollups.ts`). Each day of the fill gets its partition.
  const postgres = store.dialect === "postgres";
  if (postgres) await ensureDayPartitions(store.db, start, end);
  if (postgres) await store.db.updateTable("log_rollup_progress").set({ built_until: new Date(Math.floor(start / HOUR_MS) * HOUR_MS).toISOString() }).execute();
  // Two of the five metadata keys are declared dimensions in every workspace, before any row
  // (on PostgreSQL summed from `built_until` on: the fill's first hour).
  for (const workspaceId of WORKSPACES) await store.transaction((tx) => tx.analyticsDimensions.replace(workspaceId, DECLARED_KEYS, start));
  // The closed hours then count as built (nothing reads them before the fill sums them in
  // `serverRollups`), so the store's background build leaves them alone.
  if (postgres) await store.db.updateTable("log_rollup_progress").set({ built_until: new Date(Math.floor(end / HOUR_MS) * HOUR_MS).toISOString() }).execute();
  const started = performance.now();
  let written = 0;
  const progress = (count: number) => {
    written += count;
    if (written % 500_000 === 0) log(`${written.toLocaleString("en")} rows, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  };
  if (postgres) {
    // A bulk load into empty tables: the secondary indexes are built once at the end, by sorting,
    // rather than row by row (the primary keys stay, so the rows are checked as they go in).
    const indexes = await withoutSecondaryIndexes(store, ["logs", "log_metadata"]);
    const rollupIndexes = await withoutSecondaryIndexes(store, ["log_rollups"]);
    const buildIndex = (definition: string) =>
      store.db.transaction().execute(async (trx) => {
        // Sorting an index's entries in memory rather than in temporary files.
        await sql`SET LOCAL maintenance_work_mem = '256MB'`.execute(trx);
        await sql.raw(definition).execute(trx);
      });
    const chunks: Array<[first: number, count: number]> = [];
    for (let first = 0; first < rows; first += SERVER_FILL_CHUNK) chunks.push([first, Math.min(SERVER_FILL_CHUNK, rows - first)]);
    // Two statements at once, on two connections: each server process fills its own stretch of days.
    await inParallel(chunks, SERVER_WORKERS, async ([first, count]) => {
      await serverFill(store, first, count, rows, start, end);
      progress(count);
    });
    const loaded = (performance.now() - started) / 1000;
    log(`rows and metadata loaded in ${loaded.toFixed(1)} s (${Math.round(rows / loaded).toLocaleString("en")} rows/s, secondary indexes off)`);
    const indexing = performance.now();
    await inParallel(indexes, SERVER_WORKERS, buildIndex);
    log(`${indexes.length} secondary indexes built in ${((performance.now() - indexing) / 1000).toFixed(1)} s`);
    // The rollups of every closed hour, summed in the server, as the store's background build would have.
    const summing = performance.now();
    await serverRollups(store, Math.floor(start / HOUR_MS) * HOUR_MS, Math.floor(end / HOUR_MS) * HOUR_MS, SERVER_WORKERS);
    const rollupIndexing = performance.now();
    await inParallel(rollupIndexes, SERVER_WORKERS, buildIndex);
    log(
      `rollups summed in the server (INSERT … SELECT … GROUP BY) in ${((rollupIndexing - summing) / 1000).toFixed(1)} s, ` +
        `their ${rollupIndexes.length} secondary indexes built in ${((performance.now() - rollupIndexing) / 1000).toFixed(1)} s`,
    );
  } else {
    for (const batch of generate(rows, start, end, 20_000)) {
      await bulkLoad(store, batch);
      progress(batch.length);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  log(`filled ${rows.toLocaleString("en")} rows with their metadata and rollups${postgres ? ", indexes built," : ""} in ${seconds.toFixed(1)} s (${Math.round(rows / seconds).toLocaleString("en")} rows/s)`);
  const analysing = performance.now();
  await analyse(store);
  log(`ANALYZE: ${((performance.now() - analysing) / 1000).toFixed(1)} s`);
}

/** Runs `work` on every item, at most `workers` at once. */
async function inParallel<T>(items: readonly T[], workers: number, work: (item: T) => Promise<unknown>): Promise<void> {
  const queue = [...items];
  const worker = async (): Promise<void> => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  };
  await Promise.all(Array.from({ length: workers }, worker));
}

/**
 * PostgreSQL: drops the secondary indexes of `tables` (with their partitions')
 * and resolves to the statements that create them again, on every partition.
 */
async function withoutSecondaryIndexes(store: Store, tables: readonly string[]): Promise<string[]> {
  const { rows } = await sql<{ name: string; definition: string }>`
    SELECT indexname AS name, indexdef AS definition FROM pg_indexes
    WHERE schemaname = current_schema() AND tablename IN (${sql.join(tables)})
      AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE contype = 'p')`.execute(store.db);
  for (const { name } of rows) await sql`DROP INDEX ${sql.id(name)}`.execute(store.db);
  return rows.map(({ definition }) => definition.replace(" ON ONLY ", " ON "));
}

/**
 * The log writer's path: the logs repository's `insertBatch` (what the log worker calls), one
 * batch after another, for batches of 200 (the writer's default), 1,000 and 5,000. The records are the
 * bench's own of the last minutes, in workspaces the queries never read (`probe-…`).
 */
async function ingest(store: Store, end: number): Promise<void> {
  for (const size of [200, 1_000, 5_000]) {
    const batches = [...generate(ingestRows, end - 60_000, end, size)].map((batch) =>
      batch.map((record) => ({ ...record, id: `${record.id.slice(0, 24)}${randomBytes(6).toString("hex")}`, workspaceId: `probe-${size}-${record.workspaceId}` })),
    );
    const timings: number[] = [];
    const server0 = store.dialect === "postgres" ? await postgresCpuSeconds(store) : undefined;
    const client0 = process.cpuUsage();
    const started = performance.now();
    for (const batch of batches) {
      const t = performance.now();
      await store.logs.insertBatch(batch);
      timings.push(performance.now() - t);
    }
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(client0);
    const server1 = server0 === undefined ? undefined : await postgresCpuSeconds(store);
    const per100k = (cpu: number) => ((cpu / ingestRows) * 100_000).toFixed(2);
    const cpu = `CPU s per 100,000 rows: writer ${per100k((used.user + used.system) / 1e6)}${server1 === undefined ? "" : `, PostgreSQL ${per100k(server1 - server0!)}`}; `;
    log(
      `ingest through insertBatch, batches of ${size}: ${Math.round(ingestRows / seconds).toLocaleString("en")} rows/s; ${cpu}` +
        `batch p50 ${percentile(timings, 0.5).toFixed(1)} ms, p95 ${percentile(timings, 0.95).toFixed(1)} ms`,
    );
  }
}

/**
 * The log writer at a steady offered rate: records enqueued every 10 ms as a gateway at that many
 * requests a second would, batched with the gateway's defaults (a write starts at
 * `GATEWAY_LOG_BATCH_SIZE` waiting and takes up to `GATEWAY_LOG_MAX_BATCH_SIZE`), stored through
 * the logs repository (the records come built: `buildLogRecord`'s share of the sink is not in it).
 * It keeps pace when the queue stays flat while records are offered.
 */
async function sustainedIngest(store: Store, end: number): Promise<void> {
  const defaults = configWith({});
  const total = offeredPerSecond * offerSeconds;
  const tick = Math.max(1, Math.round(offeredPerSecond / 100));
  const batchSizes: number[] = [];
  const sink: LogSink = {
    insertBatch: async (entries) => {
      batchSizes.push(entries.length);
      await store.logs.insertBatch(entries as unknown as LogRecord[]);
    },
    ping: () => store.logs.ping(),
  };
  const writer = new LogWriter(sink, {
    flushIntervalMs: defaults.GATEWAY_LOG_FLUSH_INTERVAL_MS,
    batchSize: defaults.GATEWAY_LOG_BATCH_SIZE,
    maxBatchSize: defaults.GATEWAY_LOG_MAX_BATCH_SIZE,
  });
  const records = generate(total, end - 60_000, end, tick);
  const queue: number[] = [];
  let offered = 0;
  const started = performance.now();
  let nextSample = started + 1_000;
  while (offered < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * offeredPerSecond));
    while (offered < due) {
      const chunk = records.next();
      if (chunk.done) break;
      for (const record of chunk.value) writer.enqueue({ ...record, id: `${record.id.slice(0, 24)}${randomBytes(6).toString("hex")}`, workspaceId: `probe-writer-${record.workspaceId}` } as unknown as LogEntry);
      offered += chunk.value.length;
    }
    if (performance.now() >= nextSample) {
      queue.push(writer.pendingCount);
      nextSample += 1_000;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const offering = (performance.now() - started) / 1000;
  const waitingAtEnd = writer.pendingCount;
  await writer.close();
  const seconds = (performance.now() - started) / 1000;
  const stored = total - writer.droppedCount;
  const sorted = [...batchSizes].sort((a, b) => a - b);
  log(
    `log writer offered ${offeredPerSecond.toLocaleString("en")} records/s for ${offering.toFixed(1)} s: ${Math.round(stored / seconds).toLocaleString("en")} rows/s stored ` +
      `(${stored.toLocaleString("en")} in ${seconds.toFixed(1)} s, ${writer.droppedCount.toLocaleString("en")} dropped from a full queue); queue each second ${queue.join(", ")}; ${waitingAtEnd} waiting when the offer stopped; ` +
      `${batchSizes.length} writes, batch p50 ${sorted[Math.floor(sorted.length / 2)] ?? 0}, max ${sorted[sorted.length - 1] ?? 0}`,
  );
}

/**
 * Deletes the oldest day the way the retention timer does (steps of 1,000 logs, without its
 * pauses) and times it: the cutoff is a day after the oldest log, so a reused store loses its
 * next oldest day each run.
 */
async function retention(store: Store): Promise<void> {
  const oldest = await store.db.selectFrom("logs").select("created_at").orderBy("id").limit(1).executeTakeFirst();
  if (!oldest) return;
  const cutoff = Date.parse(oldest.created_at) + DAY_MS;
  const postgres = store.dialect === "postgres";
  // PostgreSQL drops whole days: the logs those days hold, counted before.
  const inDroppedDays = postgres
    ? Number((await store.db.selectFrom("logs").select((eb) => eb.fn.countAll().as("n")).where("id", "<", idBound(droppedDaysEnd(cutoff))).executeTakeFirstOrThrow()).n)
    : 0;
  const started = performance.now();
  let logs = 0;
  let rollups = 0;
  let days = 0;
  const steps: number[] = [];
  for (;;) {
    const t = performance.now();
    // A detach that meets a long query gives up after 2 s (the retention timer would try again later): so does this.
    const step = await deleteExpiredStep(store.db, cutoff, 1_000).catch((error: unknown) => {
      if ((error as { code?: unknown }).code === "55P03") return { logs: 1, rollups: 0, days: 0 };
      throw error;
    });
    steps.push(performance.now() - t);
    logs += step.logs;
    rollups += step.rollups;
    days += step.days;
    if (step.logs === 0 && step.rollups === 0) break;
  }
  const seconds = (performance.now() - started) / 1000;
  const stepTimes = `step p50 ${percentile(steps, 0.5).toFixed(1)} ms, p95 ${percentile(steps, 0.95).toFixed(1)} ms`;
  log(
    postgres
      ? `retention of the oldest day: ${days} day partitions dropped (${inDroppedDays.toLocaleString("en")} logs), ${logs.toLocaleString("en")} logs and ${rollups.toLocaleString("en")} rollup rows ` +
          `outside them deleted by rows, in ${seconds.toFixed(1)} s (${steps.length} steps; ${stepTimes})`
      : `retention of the oldest day: ${logs.toLocaleString("en")} logs and ${rollups.toLocaleString("en")} rollup rows deleted in ${seconds.toFixed(1)} s ` +
          `(${Math.round(logs / seconds).toLocaleString("en")} logs/s; ${stepTimes})`,
  );
}

/**
 * PostgreSQL: waits until every closed hour is summed into the rollups (the store's background
 * build, or this loop, whichever takes an hour first), so the queries read what a gateway that
 * kept up would read.
 */
async function catchUpRollups(store: Store): Promise<void> {
  const started = performance.now();
  let hours = 0;
  while (Date.parse(await readBuiltUntil(store.db)) + HOUR_MS + BUILD_GRACE_MS <= Date.now()) {
    const built = await buildClosedRollupHours(store.db);
    hours += built;
    if (built === 0) await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  // The build added 30 days of rollup rows at once: statistics of the table as it now is, and the
  // visibility map autovacuum would have set over those days (ranking groups reads an index alone).
  await sql`VACUUM ANALYZE log_rollups`.execute(store.db);
  log(`rollups built up to ${await readBuiltUntil(store.db)} (${hours} hours by this run) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

async function measureQueries(url: string, end: number): Promise<void> {
  const adminKey = `bench-admin-${randomBytes(12).toString("hex")}`;
  const gateway = await createGateway(
    configWith({ GATEWAY_DATABASE_URL: url, GATEWAY_ADMIN_KEY: adminKey, GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString("base64"), GATEWAY_QUIET: true }),
  );
  const measured = await gateway.deps.store.logs.count(WORKSPACES[0]);
  log(`measuring workspace ${WORKSPACES[0]} (${measured.toLocaleString("en")} rows), ${runs} runs per query`);
  const table = ["| query | p50 ms | p95 ms | rows/groups |", "|---|---:|---:|---:|"];
  for (const [name, path] of dashboardQueries(end)) {
    const timings: number[] = [];
    let size = 0;
    for (let i = 0; i < runs + 2; i += 1) {
      const started = performance.now();
      const response = await gateway.app.request(path, { headers: { "x-gateway-api-key": adminKey } });
      const body = (await response.json()) as { data?: unknown[]; requests?: number };
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
      if (i >= 2) timings.push(performance.now() - started);
      size = body.data?.length ?? body.requests ?? 0;
    }
    table.push(`| ${name} | ${percentile(timings, 0.5).toFixed(1)} | ${percentile(timings, 0.95).toFixed(1)} | ${size.toLocaleString("en")} |`);
  }
  await gateway.drain();
  console.log(table.join("\n"));
}

async function main(): Promise<void> {
  // BENCH_STORE_TARGET=clickhouse: the ClickHouse log store (scripts/bench-store/clickhouse.ts).
  if (process.env.BENCH_STORE_TARGET === "clickhouse") return benchClickHouse();
  const temporary = args.url === undefined;
  const url = args.url ?? `file:${join(tmpdir(), `bench-store-${randomBytes(4).toString("hex")}`, "gateway.db")}`;
  const store = await openStore(url);
  let end = Math.floor(Date.now() / 60_000) * 60_000;
  const newest = (await store.logs.list({ workspaceId: WORKSPACES[0]!, limit: 1 })).records[0];
  if (newest) {
    end = Math.ceil(Date.parse(newest.createdAt) / 60_000) * 60_000;
    log(`reusing the store's logs, the newest at ${newest.createdAt}`);
  } else {
    await fill(store, end);
  }
  if (store.dialect === "postgres") await catchUpRollups(store);
  await measureQueries(url, end);
  // Records of the current minute, as a gateway writes them: their hour is not summed yet, also
  // in a reused or long-filled store (an hour already summed takes the late records' path).
  const now = () => Math.floor(Date.now() / 60_000) * 60_000;
  if (ingestRows > 0) await ingest(store, now());
  if (offeredPerSecond > 0 && offerSeconds > 0) await sustainedIngest(store, now());
  if (!args["no-retention"]) await retention(store);
  await store.close();
  if (temporary) await rm(join(url.slice("file:".length), ".."), { recursive: true, force: true });
}

await main();
