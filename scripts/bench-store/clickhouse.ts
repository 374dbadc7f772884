/**
 * `BENCH_STORE_TARGET=clickhouse npm run bench:store`: the store benchmark on the ClickHouse log
 * store. Ingests BENCH_STORE_ROWS generated logs (default 1,000,000 over 30 days) through the
 * ClickHouse logs repository, the log writer's path, in batches of BENCH_CLICKHOUSE_BATCH (default
 * 10,000), timing rows/s; then, for each multiple in BENCH_CLICKHOUSE_SCALES (default `1,10`), grows
 * the table to that many times the ingested rows (copies made in the server with new ids, so the
 * rollups grow with them) and times every dashboard query through the HTTP app, with the bytes
 * per row on disk. Ends with the cost of retention (dropping one expired day).
 * BENCH_CLICKHOUSE_FILL=server: no ingest of BENCH_STORE_ROWS; each scale's rows are generated in
 * the server instead (`clickhouse-fill-server.ts`, a million rows in seconds), for 100M and more.
 * BENCH_CLICKHOUSE_URL: a server to use (its database is emptied first); default: a server of the
 * benchmark's own (Debian's clickhouse-server) under a temp folder.
 * BENCH_CLICKHOUSE_REUSE=1 (with BENCH_CLICKHOUSE_URL): the database is kept as it is, migrated by
 * opening the store (timed), and its queries timed once, ending at its newest log; no ingest, no fill.
 */
import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startOwnClickHouse } from "../../test/support/own-clickhouse.ts";
import { connectClickHouse, type ClickHouseConnection } from "../../src/clickhouse/clickhouse-connection.ts";
import { parseClickHouseUrl } from "../../src/clickhouse/clickhouse-url.ts";
import { openClickHouseLogStore } from "../../src/clickhouse/open-clickhouse-log-store.ts";
import { configWith } from "../../src/config.ts";
import { createGateway } from "../../src/gateway.ts";
import { fillLogsInServer } from "./clickhouse-fill-server.ts";
import { generate, WORKSPACES } from "./fill.ts";
import { dashboardQueries } from "./queries.ts";

const DAY_MS = 86_400_000;
const log = (line: string): void => console.log(`bench:store[clickhouse]: ${line}`);

function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

/**
 * Copies the seed rows once more into `logs` under new ids: the id's variant digit (always 8, 9, a
 * or b in a UUIDv7) and the digit after it become a code of `copy` whose first digit is never one
 * of those, so a copy's id never meets an original's or another copy's (up to 192 copies).
 */
async function addCopy(connection: ClickHouseConnection, columns: readonly string[], copy: number): Promise<void> {
  if (copy < 1 || copy > 192) throw new RangeError(`copy ${copy}: between 1 and 192 copies of the ingested rows`);
  const code = `${"01234567cdef"[Math.floor((copy - 1) / 16)]}${((copy - 1) % 16).toString(16)}`;
  const select = columns.map((column) => (column === "id" ? `concat(substring(id, 1, 19), '${code}', substring(id, 22)) AS id` : `\`${column}\``));
  // A tenth at a time: the materialized views aggregate each inserted block in memory.
  for (let slice = 0; slice < 10; slice++) {
    await connection.command(
      `INSERT INTO logs (${columns.map((column) => `\`${column}\``).join(", ")}) SELECT ${select.join(", ")} FROM bench_seed WHERE cityHash64(id) % 10 = ${slice}`,
    );
  }
}

async function diskFigures(connection: ClickHouseConnection): Promise<string> {
  const rows = await connection.rows<{ table: string; rows: string; bytes: string; parts: string }>(
    "SELECT table, sum(rows) AS rows, sum(bytes_on_disk) AS bytes, count() AS parts FROM system.parts WHERE database = currentDatabase() AND active GROUP BY table ORDER BY table",
  );
  return rows
    .filter((row) => row.table !== "bench_seed")
    .map((row) => `${row.table}: ${Number(row.rows).toLocaleString("en")} rows, ${(Number(row.bytes) / 1e6).toFixed(0)} MB in ${row.parts} parts${row.table === "logs" ? ` (${(Number(row.bytes) / Number(row.rows)).toFixed(1)} bytes/row)` : ""}`)
    .join("; ");
}

const loadAverage = (): string =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(" ");

/** Drops every table of the connection's database, views first. */
async function emptyDatabase(connection: ClickHouseConnection): Promise<void> {
  const tables = await connection.rows<{ name: string; engine: string }>("SELECT name, engine FROM system.tables WHERE database = currentDatabase()");
  const views = tables.filter((table) => table.engine === "MaterializedView");
  for (const { name } of [...views, ...tables.filter((table) => !views.includes(table))]) await connection.command(`DROP TABLE IF EXISTS \`${name}\``);
}

/**
 * Ingest at full load: `rows` records stamped over the seconds they would arrive in at 100,000
 * a second (so a batch is one hour's partition and a few rollup hours, as a busy gateway's are),
 * through `insertBatch` into an empty store, `rounds` times; the best round is the figure.
 */
async function benchIngest(connection: ClickHouseConnection, url: string, rounds: number, rows: number, batchSize: number): Promise<void> {
  const ingestUrl = url.replace(/\/[^/]*$/, "/bench_ingest");
  const results: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    await connection.command("DROP DATABASE IF EXISTS bench_ingest");
    await connection.command("CREATE DATABASE bench_ingest");
    const store = await openClickHouseLogStore(ingestUrl);
    const end = Date.now();
    const load = loadAverage();
    let insertMs = 0;
    for (const batch of generate(rows, end - Math.ceil(rows / 100), end, batchSize)) {
      const t = performance.now();
      await store.logs.insertBatch(batch);
      insertMs += performance.now() - t;
    }
    await store.close();
    results.push(rows / (insertMs / 1000));
    log(`ingest at full load, round ${round}: ${Math.round(results[results.length - 1]!).toLocaleString("en")} rows/s (${rows.toLocaleString("en")} rows in batches of ${batchSize.toLocaleString("en")}, ${(insertMs / 1000).toFixed(1)} s in insertBatch; load average ${load} → ${loadAverage()})`);
  }
  await connection.command("DROP DATABASE IF EXISTS bench_ingest");
  log(`ingest at full load: best of ${rounds}: ${Math.round(Math.max(...results)).toLocaleString("en")} rows/s`);
}

export async function benchClickHouse(): Promise<void> {
  const rows = Number(process.env.BENCH_STORE_ROWS ?? 1_000_000);
  const runs = Number(process.env.BENCH_STORE_RUNS ?? 30);
  const batchSize = Number(process.env.BENCH_CLICKHOUSE_BATCH ?? 10_000);
  const scales = (process.env.BENCH_CLICKHOUSE_SCALES ?? "1,10").split(",").map(Number);
  const ingestRounds = Number(process.env.BENCH_CLICKHOUSE_INGEST_ROUNDS ?? 3);
  const ingestRows = Number(process.env.BENCH_CLICKHOUSE_INGEST_ROWS ?? 300_000);
  const own = process.env.BENCH_CLICKHOUSE_URL ? null : await startOwnClickHouse();
  const url = process.env.BENCH_CLICKHOUSE_URL ?? (await own!.database("bench_logs"));
  const reuse = process.env.BENCH_CLICKHOUSE_REUSE === "1" && own === null;
  const connection = await connectClickHouse(parseClickHouseUrl(url));
  if (!reuse) await emptyDatabase(connection);
  const opening = performance.now();
  const store = await openClickHouseLogStore(url);
  log(`ClickHouse ${store.version}; store opened and migrated in ${((performance.now() - opening) / 1000).toFixed(1)} s; load average ${loadAverage()}`);
  if (ingestRounds > 0 && !reuse) await benchIngest(connection, url, ingestRounds, ingestRows, batchSize);

  const [newest] = reuse ? await connection.rows<{ ms: string }>("SELECT max(created_ms) AS ms FROM logs") : [];
  const end = newest ? Math.ceil(Number(newest.ms) / 60_000) * 60_000 : Math.floor(Date.now() / 60_000) * 60_000;
  // In the server: each scale's rows generated there (`clickhouse-fill-server.ts`), no ingest.
  const inServer = process.env.BENCH_CLICKHOUSE_FILL === "server";
  let columns: string[] = [];
  if (!inServer && !reuse) {
    let insertMs = 0;
    const started = performance.now();
    for (const batch of generate(rows, end - 30 * DAY_MS, end, batchSize)) {
      const t = performance.now();
      await store.logs.insertBatch(batch);
      insertMs += performance.now() - t;
    }
    const wall = (performance.now() - started) / 1000;
    log(`ingested ${rows.toLocaleString("en")} rows in batches of ${batchSize.toLocaleString("en")}: ${Math.round(rows / (insertMs / 1000)).toLocaleString("en")} rows/s in insertBatch (${(insertMs / 1000).toFixed(1)} s; ${wall.toFixed(1)} s with generating the records)`);
    await connection.command("CREATE TABLE bench_seed AS logs ENGINE = MergeTree ORDER BY id");
    await connection.command("INSERT INTO bench_seed SELECT * FROM logs");
    columns = (await connection.rows<{ name: string }>("DESCRIBE TABLE logs")).map((row) => row.name);
  }

  const dataDir = join(tmpdir(), `bench-clickhouse-main-${randomBytes(4).toString("hex")}`);
  const adminKey = `bench-admin-${randomBytes(12).toString("hex")}`;
  const gateway = await createGateway(
    configWith({
      GATEWAY_DATABASE_URL: `file:${join(dataDir, "gateway.db")}`,
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_LOG_STORE_URL: url,
      GATEWAY_ADMIN_KEY: adminKey,
      GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      GATEWAY_QUIET: true,
    }),
  );
  let copies = inServer ? 0 : 1;
  for (const scale of reuse ? [0] : scales) {
    const copyStarted = performance.now();
    if (reuse) log("reusing the database as it is");
    else if (inServer) {
      const target = Math.round(rows * scale);
      const have = Math.round(rows * copies);
      log(`filling ${have.toLocaleString("en")} → ${target.toLocaleString("en")} rows in the server; load average ${loadAverage()}`);
      await fillLogsInServer(url, have, target - have, end - 30 * DAY_MS, end);
      copies = scale;
    } else while (copies < scale) await addCopy(connection, columns, copies++);
    if (!reuse && (copies > 1 || inServer)) log(`grew to ${scale}× in the server: ${((performance.now() - copyStarted) / 1000).toFixed(1)} s`);
    log(`disk: ${await diskFigures(connection)}`);
    const total = reuse ? Number((await connection.rows<{ n: string }>("SELECT count() AS n FROM logs"))[0]!.n) : rows * scale;
    const defaultRows = await gateway.deps.store.logs.count(WORKSPACES[0]);
    log(`measuring workspace ${WORKSPACES[0]} (${defaultRows.toLocaleString("en")} rows of ${total.toLocaleString("en")}), ${runs} runs per query; load average ${loadAverage()}`);
    const table = ["| query | p50 ms | p95 ms | rows/groups |", "|---|---:|---:|---:|"];
    for (const [name, path] of dashboardQueries(end)) {
      const timings: number[] = [];
      let size = 0;
      for (let i = 0; i < runs + 3; i += 1) {
        const t = performance.now();
        const response = await gateway.app.request(path, { headers: { "x-gateway-api-key": adminKey } });
        const body = (await response.json()) as { data?: unknown[]; requests?: number };
        if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
        if (i >= 3) timings.push(performance.now() - t);
        size = body.data?.length ?? body.requests ?? 0;
      }
      table.push(`| ${name} | ${percentile(timings, 0.5).toFixed(1)} | ${percentile(timings, 0.95).toFixed(1)} | ${size.toLocaleString("en")} |`);
    }
    console.log(`\n${total.toLocaleString("en")} rows:\n${table.join("\n")}\n`);
  }
  const retention = performance.now();
  const step = await store.deleteExpiredStep(end - 29 * DAY_MS, 1_000);
  log(`retention: dropped ${step.logs.toLocaleString("en")} logs and ${step.rollups.toLocaleString("en")} rollup rows (the oldest day) in ${(performance.now() - retention).toFixed(0)} ms`);
  await gateway.drain();
  await store.close();
  await connection.close();
  await own?.remove();
  await rm(dataDir, { recursive: true, force: true });
}
