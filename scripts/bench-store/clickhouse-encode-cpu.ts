/**
 * `tsx scripts/bench-store/clickhouse-encode-cpu.ts`: the client's share of ingest without the
 * network or a server. Writes BENCH_STORE_ROWS (200,000) generated records as the TabSeparated
 * text of a batch insert (`writeTabSeparated`), BENCH_CLICKHOUSE_ENCODE_ROUNDS (5) times, and
 * prints the CPU time (`process.cpuUsage()`) per 100,000 rows of the best round.
 */
import { loadavg } from "node:os";
import { writeTabSeparated } from "../../src/clickhouse/clickhouse-log-rows.ts";
import { generate } from "./fill.ts";

const rows = Number(process.env.BENCH_STORE_ROWS ?? 200_000);
const rounds = Number(process.env.BENCH_CLICKHOUSE_ENCODE_ROUNDS ?? 5);
const end = Date.now();
const [records] = [...generate(rows, end - Math.ceil(rows / 100), end, rows)];
const load0 = loadavg()[0]!;
const perRound: number[] = [];
let bytes = 0;
for (let round = 0; round < rounds; round++) {
  const before = process.cpuUsage();
  bytes = writeTabSeparated(records!).reduce((sum, chunk) => sum + chunk.length, 0);
  const used = process.cpuUsage(before);
  perRound.push(((used.user + used.system) / 1e6 / rows) * 100_000);
}
console.log(
  `${rows.toLocaleString("en")} rows, ${(bytes / rows).toFixed(0)} bytes/row: CPU s per 100,000 rows ${Math.min(...perRound).toFixed(3)} best ` +
    `(rounds ${perRound.map((s) => s.toFixed(3)).join(", ")}); load average ${load0.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`,
);
