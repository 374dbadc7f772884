import { sql } from "kysely";
import { analyseCurrentSchema } from "../../src/store/dialects/postgres.ts";
import { postgresJsonRows } from "../../src/store/dialects/postgres-json-rows.ts";
import { builtPeriodRollupRows, lockBuiltUntil } from "../../src/store/log-rollup-build.ts";
import { toRollupRows } from "../../src/store/log-rollup-rows.ts";
import { upsertRollups } from "../../src/store/log-rollup-sql.ts";
import { boundMetadataRows } from "../../src/store/log-rollup-bound.ts";
import { readDeclaredKeys } from "../../src/store/declared-keys.ts";
import { toLogRow, toMetadataRows, toPostgresLogRow } from "../../src/store/log-rows.ts";
import type { Store } from "../../src/store/open-store.ts";
import type { LogRecord } from "../../src/records/log-record.ts";

/**
 * Fills the store with a chunk of generated records in one transaction: on PostgreSQL one
 * statement per table (metadata pairs in the log rows) (the JSON rows the log writer also uses, without its conflict checks on
 * a fresh table), on SQLite Kysely's multi-row inserts. The chunk's rollups are summed in memory
 * and upserted as the writer does (on PostgreSQL those of hours already built, the rest being
 * the background build's), so the fill leaves the rollups the writer would have left.
 */
export async function bulkLoad(store: Store, records: readonly LogRecord[]): Promise<void> {
  await store.db.transaction().execute(async (trx) => {
    const declared = await readDeclaredKeys(trx);
    if (store.dialect === "postgres") {
      // Hours from `built_until` on are summed by the background build, from the rows.
      const builtUntil = Date.parse(await lockBuiltUntil(trx));
      const rollups = builtPeriodRollupRows(records, builtUntil, declared);
      for (const rows of chunked(records.map(toPostgresLogRow), 5_000)) await postgresJsonRows.logs(trx, rows);
      for (const rows of chunked(rollups, 5_000)) await postgresJsonRows.rollups(trx, rows);
      return;
    }
    const logs = records.map(toLogRow);
    const metadata = records.flatMap(toMetadataRows);
    for (const rows of chunked(logs, 500)) await trx.insertInto("logs").values(rows).execute();
    for (const rows of chunked(metadata, 2_000)) await trx.insertInto("log_metadata").values(rows).execute();
    await upsertRollups(trx, await boundMetadataRows(trx, toRollupRows(records, declared)));
  });
}

/** Refreshes the planner's statistics after the fill (PostgreSQL's autovacuum would get there later). */
export async function analyse(store: Store): Promise<void> {
  if (store.dialect === "postgres") await analyseCurrentSchema(store.db);
  else await sql`ANALYZE`.execute(store.db);
}

function chunked<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}
