import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { createClient } from "@libsql/client";
import { sql } from "kysely";
import { filePath, sqliteSetupStatements } from "./sqlite-file.ts";
import type { StoreDialect } from "./store-dialect.ts";
import { SerialLibsqlDialect } from "./serial-libsql-driver.ts";

/**
 * Embedded libSQL (SQLite) for `file:` URLs (`file:data/gateway.db`, `file:/abs/x.db`,
 * `file:///abs/x.db`) and `:memory:`, the engine of the embedded store under Node. For files it
 * creates the parent folder first; `sqliteSetupStatements` says how the file is set up.
 */
export async function createLibsqlDialect(url: string): Promise<StoreDialect> {
  if (url !== ":memory:") await mkdir(dirname(filePath(url)), { recursive: true });
  const client = createClient({ url });
  for (const statement of sqliteSetupStatements(url)) await client.execute(statement);
  return {
    name: "sqlite",
    dialect: new SerialLibsqlDialect(client),
    migrationSchema: () => Promise.resolve(undefined),
    refreshPlannerStatistics: async (db) => {
      await sql`ANALYZE`.execute(db);
    },
  };
}
