import { randomBytes, randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Client } from "pg";
import { testPostgresUrl } from "./services.ts";

/** The PostgreSQL the store tests need (`services.ts`: the machine's, `TEST_POSTGRES_URL`, or a throwaway one). */
const POSTGRES_BASE_URL = testPostgresUrl();

/** A test database: the URL to hand `openStore`, and how to throw it away. */
export interface TestDatabase {
  url: string;
  cleanup(): Promise<void>;
}

/**
 * A `file:` URL for a fresh libSQL database under the OS temp folder. The folder does not
 * exist yet: opening the store creates it. Remove it with `removeSqliteTestDatabase`.
 */
export function sqliteTestUrl(): string {
  return `file:${join(tmpdir(), "gateway-tests", randomUUID(), "store.db")}`;
}

/** Deletes the folder of a URL made by `sqliteTestUrl` (database, WAL and shared-memory files). */
export async function removeSqliteTestDatabase(url: string): Promise<void> {
  await rm(dirname(url.slice("file:".length)), { recursive: true, force: true });
}

/**
 * A fresh, uniquely named schema in database `test`, and a URL whose every connection uses
 * it: `?options=-c search_path=<schema>` makes the server set `search_path` at connection
 * start, so unqualified tables (the store's and Kysely's migration tables) live there.
 * `cleanup` drops the schema with everything in it.
 * Rejects with a plain message when PostgreSQL cannot be reached: these tests must not skip.
 */
export async function postgresTestUrl(): Promise<TestDatabase> {
  const schema = `store_test_${randomBytes(6).toString("hex")}`;
  await withAdminClient((client) => client.query(`create schema "${schema}"`));
  const url = new URL(POSTGRES_BASE_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return {
    url: url.toString(),
    cleanup: () => withAdminClient((client) => dropSchema(client, schema)),
  };
}

/** PostgreSQL's SQLSTATE when its lock table is full. */
const OUT_OF_SHARED_MEMORY = "53200";

/**
 * Drops the schema with everything in it. One `DROP … CASCADE` locks every table and index it
 * drops: a schema of many day partitions can pass the server's lock table while other tests hold
 * locks too. Then its tables go one at a time, partitions first, and the schema after them.
 */
async function dropSchema(client: Client, schema: string): Promise<void> {
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
    return;
  } catch (error) {
    if ((error as { code?: unknown }).code !== OUT_OF_SHARED_MEMORY) throw error;
  }
  const { rows } = await client.query<{ name: string }>(
    `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = $1 and c.relkind in ('r', 'p') order by c.relispartition desc`,
    [schema],
  );
  for (const { name } of rows) await client.query(`drop table if exists "${schema}"."${name}" cascade`);
  await client.query(`drop schema if exists "${schema}" cascade`);
}

/** A libSQL test database in the same shape as `postgresTestUrl`. */
export async function sqliteTestDatabase(): Promise<TestDatabase> {
  const url = sqliteTestUrl();
  return { url, cleanup: () => removeSqliteTestDatabase(url) };
}

/** Both dialects, for `describe.each(TEST_DATABASES)("store on $name", …)`. */
export const TEST_DATABASES = [
  { name: "libsql", create: sqliteTestDatabase },
  { name: "postgres", create: postgresTestUrl },
] as const;

async function withAdminClient(work: (client: Client) => Promise<unknown>): Promise<void> {
  const client = new Client({ connectionString: POSTGRES_BASE_URL, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `PostgreSQL is needed for the store tests (database "test", user postgres, trust auth; see test/support/services.global.ts); ` +
        `connecting to ${redact(POSTGRES_BASE_URL)} failed: ${reason}`,
    );
  }
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
}
