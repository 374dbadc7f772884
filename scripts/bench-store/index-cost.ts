/**
 * PostgreSQL: what each secondary index of `logs` and `log_metadata` costs a copy of the log
 * writer's rows. `npx tsx scripts/bench-store/index-cost.ts <postgres-url> [--prefill N] [--rows N]`
 * on a store migrated to the latest schema: copies `--prefill` records (default 200,000) into
 * today's partitions, then, for each index, copies `--rows` more (default 10,000) with that
 * index dropped, in a transaction rolled back (best of five), against the copy with every index.
 */
import { parseArgs } from "node:util";
import pg from "pg";
import { copyRows } from "../../src/store/dialects/postgres-copy.ts";
import { toLogRow, toMetadataRows } from "../../src/store/log-rows.ts";
import { generate } from "./fill.ts";

const { values, positionals } = parseArgs({ allowPositionals: true, options: { prefill: { type: "string", default: "200000" }, rows: { type: "string", default: "10000" } } });
const client = new pg.Client({ connectionString: positionals[0] });
await client.connect();
const end = Date.now();
const records = (count: number, tag: string) =>
  [...generate(count, end - 600_000, end, count)].flat().map((record) => ({ ...record, id: `${record.id.slice(0, 24)}${Math.random().toString(16).slice(2, 14).padEnd(12, "0")}`, workspaceId: `${tag}-${record.workspaceId}` }));

const prefill = Number(values.prefill);
for (let done = 0; done < prefill; done += 20_000) {
  const batch = records(Math.min(20_000, prefill - done), `pre${done}`);
  await client.query("BEGIN");
  await copyRows(client, "logs", batch.map(toLogRow));
  await copyRows(client, "log_metadata", batch.flatMap(toMetadataRows));
  await client.query("COMMIT");
}
await client.query("ANALYZE logs; ANALYZE log_metadata");

const { rows: indexes } = await client.query<{ table: string; name: string; primary: boolean }>(`
  SELECT tablename AS table, indexname AS name, indexname IN (SELECT conname FROM pg_constraint WHERE contype = 'p') AS primary
  FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN ('logs', 'log_metadata') ORDER BY 1, 2`);

const RUNS = 5;
async function timedCopy(drop: string[]): Promise<{ logs: number; metadata: number }> {
  const best = { logs: Infinity, metadata: Infinity };
  for (let run = 0; run < RUNS; run += 1) {
    const batch = records(Number(values.rows), `probe${run}`);
    const logRows = batch.map(toLogRow);
    const metadataRows = batch.flatMap(toMetadataRows);
    await client.query("BEGIN");
    for (const statement of drop) await client.query(statement);
    let t = performance.now();
    await copyRows(client, "logs", logRows);
    best.logs = Math.min(best.logs, performance.now() - t);
    t = performance.now();
    await copyRows(client, "log_metadata", metadataRows);
    best.metadata = Math.min(best.metadata, performance.now() - t);
    await client.query("ROLLBACK");
  }
  return best;
}

const dropOf = ({ table, name, primary }: { table: string; name: string; primary: boolean }) =>
  primary ? `ALTER TABLE ${table} DROP CONSTRAINT ${name}` : `DROP INDEX ${name}`;
const all = await timedCopy([]);
console.log(`every index: logs ${all.logs.toFixed(0)} ms, metadata ${all.metadata.toFixed(0)} ms (${values.rows} records)`);
for (const index of indexes) {
  const without = await timedCopy([dropOf(index)]);
  const saved = index.table === "logs" ? all.logs - without.logs : all.metadata - without.metadata;
  console.log(`without ${index.table}.${index.name}: logs ${without.logs.toFixed(0)} ms, metadata ${without.metadata.toFixed(0)} ms (saves ${saved.toFixed(0)} ms)`);
}
const bare = await timedCopy(indexes.filter((index) => !index.primary).map(dropOf));
console.log(`primary keys only: logs ${bare.logs.toFixed(0)} ms, metadata ${bare.metadata.toFixed(0)} ms`);
const none = await timedCopy(indexes.map(dropOf));
console.log(`no index at all: logs ${none.logs.toFixed(0)} ms, metadata ${none.metadata.toFixed(0)} ms`);
await client.end();
