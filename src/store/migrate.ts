import { Migrator, type Kysely } from "kysely";
import type { StoreDialect } from "./dialects/store-dialect.ts";
import { staticMigrationProvider } from "./migrations/index.ts";
import type { Database } from "./schema.ts";

/**
 * Runs every pending migration. Safe to call on every start and from several processes at
 * once: Kysely takes a migration lock and skips what has run. Throws if one fails (the
 * failed migration's transaction is rolled back). Resolves to the names of the migrations it ran.
 */
export async function migrateToLatest(db: Kysely<Database>, dialect: StoreDialect): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: staticMigrationProvider,
    migrationTableSchema: await dialect.migrationSchema(db),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === "Error")?.migrationName ?? "unknown";
    throw new Error(`store migration ${failed} failed`, { cause: error });
  }
  return (results ?? []).filter((result) => result.status === "Success").map((result) => result.migrationName);
}
