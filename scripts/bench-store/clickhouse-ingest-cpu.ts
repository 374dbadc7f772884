/**
 * `tsx scripts/bench-store/clickhouse-ingest-cpu.ts`: where ingest time goes. Inserts
 * BENCH_STORE_ROWS (200,000) generated records, stamped over the seconds they would arrive in at
 * 100,000 a second, through the ClickHouse logs repository in batches of BENCH_CLICKHOUSE_BATCH
 * (10,000) into an emptied database `bench_ingest_cpu` of the server at BENCH_CLICKHOUSE_URL, and
 * prints the CPU time per 100,000 rows of this process (`process.cpuUsage()`) and of the server,
 * whose process id is BENCH_CLICKHOUSE_PID (read from `/proc/<pid>/stat`, so a local server that
 * nothing else uses), counting the merges that follow within five seconds.
 * BENCH_CLICKHOUSE_VIEWS (a comma-separated list of rollup tables, or `none`) keeps only those
 * rollups' materialized views: the server's share of each view.
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { connectClickHouse } from "../../src/clickhouse/clickhouse-connection.ts";
import { parseClickHouseUrl } from "../../src/clickhouse/clickhouse-url.ts";
import { openClickHouseLogStore } from "../../src/clickhouse/open-clickhouse-log-store.ts";
import { generate } from "./fill.ts";

const url = process.env.BENCH_CLICKHOUSE_URL;
const pid = process.env.BENCH_CLICKHOUSE_PID;
if (!url || !pid) throw new Error("set BENCH_CLICKHOUSE_URL (any database of the server) and BENCH_CLICKHOUSE_PID");
const rows = Number(process.env.BENCH_STORE_ROWS ?? 200_000);
const batchSize = Number(process.env.BENCH_CLICKHOUSE_BATCH ?? 10_000);

/** The server's user + system CPU seconds (fields 14 and 15 of `/proc/<pid>/stat`, in clock ticks of 1/100 s). */
function serverCpuSeconds(): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const databaseUrl = url.replace(/\/[^/]*$/, "/bench_ingest_cpu");
const admin = await connectClickHouse(parseClickHouseUrl(url));
await admin.command("DROP DATABASE IF EXISTS bench_ingest_cpu");
await admin.command("CREATE DATABASE bench_ingest_cpu");
const store = await openClickHouseLogStore(databaseUrl);
const keptViews = process.env.BENCH_CLICKHOUSE_VIEWS;
if (keptViews !== undefined) {
  const keep = new Set(keptViews.split(",").map((table) => `${table.trim()}_mv`));
  const views = await admin.rows<{ name: string }>("SELECT name FROM system.tables WHERE database = 'bench_ingest_cpu' AND engine = 'MaterializedView'");
  for (const { name } of views) if (!keep.has(name)) await admin.command(`DROP TABLE bench_ingest_cpu.${name}`);
}
const end = Date.now();
const batches = [...generate(rows, end - Math.ceil(rows / 100), end, batchSize)];
const server0 = serverCpuSeconds();
const client0 = process.cpuUsage();
const load0 = loadavg()[0]!;
const started = performance.now();
for (const batch of batches) await store.logs.insertBatch(batch);
const wall = (performance.now() - started) / 1000;
await new Promise((resolve) => setTimeout(resolve, 5_000));
const server = serverCpuSeconds() - server0;
const used = process.cpuUsage(client0);
const client = (used.user + used.system) / 1e6;
const per100k = (seconds: number) => ((seconds / rows) * 100_000).toFixed(2);
console.log(
  `${rows.toLocaleString("en")} rows in batches of ${batchSize.toLocaleString("en")}: ${Math.round(rows / wall).toLocaleString("en")} rows/s; ` +
    `CPU s per 100,000 rows: server ${per100k(server)}, client ${per100k(client)}; ${Math.round(rows / (server + client)).toLocaleString("en")} rows per CPU-second; ` +
    `views ${keptViews ?? "all"}; load average ${load0.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`,
);
await store.close();
await admin.command("DROP DATABASE IF EXISTS bench_ingest_cpu");
await admin.close();
