import { PostgresAdapter, sql, type Kysely } from "kysely";

/**
 * PostgreSQL only: `logs` and `log_metadata` become tables partitioned by range of the log id
 * (`logs.id`, `log_metadata.log_id`). Frozen: add `0023_…` for changes.
 *
 * A log id is a UUIDv7, whose first twelve hex digits are its creation millisecond: a range of
 * ids is a range of time, so a partition per UTC day holds that day's logs and their metadata
 * pairs, and expiring a day drops its tables. The primary keys stay as they are (they contain
 * the partition key), so `ON CONFLICT (id)` keeps skipping a retried batch's records.
 *
 * Each table gets a default partition for ids outside every day's; the day partitions are
 * created by the store (`store/log-partitions.ts`), ahead of time. The tables keep their
 * columns, defaults and indexes (each index is created on the partitioned table under its own
 * name, and PostgreSQL creates it on every partition).
 *
 * An existing table is renamed `<table>_unpartitioned` (its indexes `<name>_unpartitioned`)
 * and, when it holds rows, kept: the store moves them in batches into the partitioned table
 * in the background. An empty one is dropped.
 */
const TABLES = [
  ["logs", "id"],
  ["log_metadata", "log_id"],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const [table, key] of TABLES) await partition(db, table, key);
}

interface IndexRow {
  name: string;
  definition: string;
  primary: boolean;
}

async function partition(db: Kysely<unknown>, table: string, key: string): Promise<void> {
  const old = `${table}_unpartitioned`;
  const { rows: indexes } = await sql<IndexRow>`
    SELECT i.indexname AS name, i.indexdef AS definition, coalesce(c.contype = 'p', false) AS primary
    FROM pg_indexes i
    LEFT JOIN pg_constraint c ON c.conname = i.indexname AND c.conrelid = (quote_ident(current_schema()) || '.' || quote_ident(${table}))::regclass
    WHERE i.schemaname = current_schema() AND i.tablename = ${table}`.execute(db);
  const { rows } = await sql<{ empty: boolean }>`SELECT NOT EXISTS (SELECT 1 FROM ${sql.table(table)}) AS empty`.execute(db);

  await sql`ALTER TABLE ${sql.table(table)} RENAME TO ${sql.table(old)}`.execute(db);
  for (const { name, primary } of indexes) {
    const renamed = sql.id(`${name}_unpartitioned`);
    if (primary) await sql`ALTER TABLE ${sql.table(old)} RENAME CONSTRAINT ${sql.id(name)} TO ${renamed}`.execute(db);
    else await sql`ALTER INDEX ${sql.id(name)} RENAME TO ${renamed}`.execute(db);
  }

  await sql`CREATE TABLE ${sql.table(table)} (LIKE ${sql.table(old)} INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (${sql.ref(key)})`.execute(db);
  for (const { name, definition, primary } of indexes) {
    const columns = /USING \w+ (\(.*\))/.exec(definition)?.[1];
    if (primary && columns) {
      await sql`ALTER TABLE ${sql.table(table)} ADD CONSTRAINT ${sql.id(name)} PRIMARY KEY ${sql.raw(columns)}`.execute(db);
      continue;
    }
    // The definition as PostgreSQL wrote it, on the new table: `CREATE [UNIQUE] INDEX name ON schema.table USING …`.
    await sql.raw(definition.replace(/ ON (\S+\.)?\S+ USING /, ` ON ${table} USING `)).execute(db);
  }
  await sql`CREATE TABLE ${sql.table(`${table}_default`)} PARTITION OF ${sql.table(table)} DEFAULT`.execute(db);
  if (rows[0]?.empty) await sql`DROP TABLE ${sql.table(old)}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  throw new Error("0022_partitioned_logs cannot be undone: restore the store from a backup taken before it");
}
