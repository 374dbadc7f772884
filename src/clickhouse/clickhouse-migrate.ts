import type { ClickHouseConnection } from "./clickhouse-connection.ts";
import { CLICKHOUSE_MIGRATIONS, statementsFor, type ClickHouseMigration } from "./clickhouse-migrations.ts";
import { num, str } from "./clickhouse-sql.ts";

/**
 * Applies the migrations not yet recorded in `schema_migrations`, in version order, recording
 * each once its statements ran. Statements are idempotent, so a start interrupted halfway, or two
 * replicas starting at once, end in the same schema. Resolves to the versions applied now.
 */
export async function migrateClickHouse(connection: ClickHouseConnection, migrations: readonly ClickHouseMigration[] = CLICKHOUSE_MIGRATIONS): Promise<number[]> {
  await connection.command(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version UInt32, name String, applied_ms Int64) ENGINE = ReplacingMergeTree ORDER BY version",
  );
  const applied = new Set((await connection.rows<{ version: number }>("SELECT DISTINCT version FROM schema_migrations")).map((row) => Number(row.version)));
  const ran: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(migration.version)) continue;
    for (const statement of await statementsFor(migration, connection)) await connection.command(statement);
    await connection.command(
      `INSERT INTO schema_migrations (version, name, applied_ms) VALUES (${num(migration.version)}, ${str(migration.name)}, ${num(Date.now())})`,
    );
    ran.push(migration.version);
  }
  return ran;
}
