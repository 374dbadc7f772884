/**
 * PostgreSQL: the log writer's ingest as today's partition grows.
 * `npx tsx scripts/bench-store/ingest-growth.ts <postgres-url> [--total N] [--round N] [--batch N]`
 * on a store migrated to the latest schema (e.g. one `npm run bench:store` filled): writes
 * `--total` records (default 2,000,000) of the current minute through `insertBatch`, in rounds of
 * `--round` (default 250,000) and batches of `--batch` (default 5,000), and prints each round's
 * rows/s and the CPU seconds per 100,000 rows of the writer and of every PostgreSQL process.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ensureDayPartitions } from "../../src/store/log-partitions.ts";
import { openStore } from "../../src/store/open-store.ts";
import { generate } from "./fill.ts";
import { postgresCpuSeconds } from "./postgres-cpu.ts";

const DAY_MS = 86_400_000;
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { total: { type: "string", default: "2000000" }, round: { type: "string", default: "250000" }, batch: { type: "string", default: "5000" } },
});
const [total, round, batchSize] = [Number(values.total), Number(values.round), Number(values.batch)];
const store = await openStore(positionals[0]!);
if (store.dialect !== "postgres") throw new Error("ingest-growth measures a PostgreSQL store");
const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const per100k = (seconds: number) => ((seconds * 100_000) / round).toFixed(2);

for (let written = 0; written < total; ) {
  const end = Math.floor(Date.now() / 60_000) * 60_000;
  await ensureDayPartitions(store.db, end - DAY_MS, end + DAY_MS);
  const batches = [...generate(round, end - 60_000, end, batchSize)];
  const server0 = (await postgresCpuSeconds(store)) ?? 0;
  const client0 = process.cpuUsage();
  const started = performance.now();
  for (const batch of batches) await store.logs.insertBatch(batch);
  const seconds = (performance.now() - started) / 1000;
  const server = ((await postgresCpuSeconds(store)) ?? 0) - server0;
  const client = process.cpuUsage(client0);
  written += round;
  console.log(
    `${written.toLocaleString("en")} written: ${Math.round(round / seconds).toLocaleString("en")} rows/s; CPU s per 100,000 rows: ` +
      `writer ${per100k((client.user + client.system) / 1e6)}, PostgreSQL ${per100k(server)} (load ${loadAverage()})`,
  );
}
await store.close();
