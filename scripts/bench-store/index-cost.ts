/**
 * PostgreSQL: what each index of `logs` costs a copy of the log writer's rows (their metadata
 * pairs in the row). `npx tsx scripts/bench-store/index-cost.ts <postgres-url> [--prefill N] [--rows N]`
 * on a store migrated to the latest schema: copies `--prefill` records (default 200,000) into
 * today's partitions, then, for each index, copies `--rows` more (default 10,000) with that
 * index dropped, in a transaction rolled back (best of five), against the copy with every index.
 */
import { parseArgs } from "node:util";
import pg from "pg";
import { copyRows } from "../../src/store/dialects/postgres-copy.ts";
import { toPostgresLogRow } from "../../src/store/log-rows.ts";
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
  await copyRows(client, "logs", batch.map(toPostgresLogRow));
  await client.query("COMMIT");
}
await client.query("ANALYZE logs");

const { rows: indexes } = await client.query<{ name: string; primary: boolean }>(`
  SELECT indexname AS name, indexname IN (SELECT conname FROM pg_constraint WHERE contype = 'p') AS primary
  FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'logs' ORDER BY 1`);

const RUNS = 5;
async function timedCopy(drop: string[]): Promise<number> {
  let best = Infinity;
  for (let run = 0; run < RUNS; run += 1) {
    const rows = records(Number(values.rows), `probe${run}`).map(toPostgresLogRow);
    await client.query("BEGIN");
    for (const statement of drop) await client.query(statement);
    const t = performance.now();
    await copyRows(client, "logs", rows);
    best = Math.min(best, performance.now() - t);
    await client.query("ROLLBACK");
  }
  return best;
}

const dropOf = ({ name, primary }: { name: string; primary: boolean }) => (primary ? `ALTER TABLE logs DROP CONSTRAINT ${name}` : `DROP INDEX ${name}`);
const all = await timedCopy([]);
console.log(`every index: ${all.toFixed(0)} ms (${values.rows} records)`);
for (const index of indexes) {
  const without = await timedCopy([dropOf(index)]);
  console.log(`without ${index.name}: ${without.toFixed(0)} ms (saves ${(all - without).toFixed(0)} ms)`);
}
console.log(`primary key only: ${(await timedCopy(indexes.filter((index) => !index.primary).map(dropOf))).toFixed(0)} ms`);
console.log(`no index at all: ${(await timedCopy(indexes.map(dropOf))).toFixed(0)} ms`);
await client.end();
