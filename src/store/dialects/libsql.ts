import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { createClient } from "@libsql/client";
import { sql } from "kysely";
import { BUSY_TIMEOUT_MS, filePath, PAGE_SIZE_BYTES } from "./sqlite-file.ts";
import type { StoreDialect } from "./store-dialect.ts";
import { SerialLibsqlDialect } from "./serial-libsql-driver.ts";

/** Rows `ANALYZE` samples per index: enough to rank the indexes, and quick on any table size. */
const ANALYSIS_ROW_LIMIT = 1_000;

/**
 * Embedded libSQL (SQLite) for `file:` URLs (`file:data/gateway.db`, `file:/abs/x.db`,
 * `file:///abs/x.db`) and `:memory:`. For files it creates the parent folder first and turns
 * on WAL (readers never block the writer) with a busy timeout, so several processes can share
 * one file; a new file gets 16 KiB pages. `synchronous=NORMAL` is the usual WAL pairing: a
 * power cut may lose the last commits but never corrupts the file.
 */
export async function createLibsqlDialect(url: string): Promise<StoreDialect> {
  if (url !== ":memory:") await mkdir(dirname(filePath(url)), { recursive: true });
  const client = createClient({ url });
  if (url !== ":memory:") {
    // Before WAL: only then can a new file still take it (an existing file ignores it).
    await client.execute(`PRAGMA page_size=${PAGE_SIZE_BYTES}`);
    await client.execute("PRAGMA journal_mode=WAL");
    await client.execute(`PRAGMA busy_timeout=${BUSY_TIMEOUT_MS}`);
    await client.execute("PRAGMA synchronous=NORMAL");
  }
  await client.execute(`PRAGMA analysis_limit=${ANALYSIS_ROW_LIMIT}`);
  return {
    name: "sqlite",
    dialect: new SerialLibsqlDialect(client),
    migrationSchema: () => Promise.resolve(undefined),
    refreshPlannerStatistics: async (db) => {
      await sql`ANALYZE`.execute(db);
    },
  };
}
