import { sql, type Kysely } from "kysely";
import type { Database } from "../schema.ts";
import { Pool, type PoolClient } from "pg";
import { markStoreUnavailable } from "../store-unavailable.ts";
import { CurrentSchemaPostgresDialect } from "./postgres-introspector.ts";
import { copyRows } from "./postgres-copy.ts";
import { postgresJsonRows } from "./postgres-json-rows.ts";
import { WithoutNulCharactersPlugin } from "./postgres-text.ts";
import type { StoreDialect } from "./store-dialect.ts";

/**
 * PostgreSQL through a `pg` pool. The URL is passed to `pg` as is, so its query options
 * work (`sslmode`, `options=-c search_path=<schema>`, …); the store's tables live in the
 * connection's current schema.
 */
export function createPostgresDialect(url: string): StoreDialect {
  // A server that does not answer fails a query after 5 s rather than holding it forever.
  const pool = new Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5_000 });
  // An idle client that loses its server emits `error` on the pool; unhandled, that would
  // crash the process. The pool drops the client and the next query connects afresh.
  pool.on("error", () => {});
  // A client lent out (a query running) that loses its server emits `error` on itself, where
  // the pool listens only while the client is idle: unhandled, that ends the process. The
  // query in flight is failed with the error all the same, and the pool drops the client on release.
  pool.on("connect", (client) => client.on("error", () => {}));
  // Each pooled client by its server process id, so a COPY can run on the client that a
  // Kysely transaction holds (Kysely does not hand its client out).
  const clients = new Map<number, PoolClient>();
  pool.on("connect", (client) => clients.set((client as PoolClient & { processID: number }).processID, client));
  pool.on("remove", (client) => clients.delete((client as PoolClient & { processID: number }).processID));
  // A transaction's server process, looked up once per transaction (a batch copies two tables).
  const transactionPids = new WeakMap<Kysely<Database>, number>();
  return {
    name: "postgres",
    // A connection the pool cannot give (refused, timed out, none free in time, a database not
    // accepting connections, a server starting up) is the store's absence, whatever its code.
    dialect: new CurrentSchemaPostgresDialect({
      pool: {
        connect: () => pool.connect().catch((error: unknown) => Promise.reject(markStoreUnavailable(error))),
        end: () => pool.end(),
      },
    }),
    plugins: [new WithoutNulCharactersPlugin()],
    bulkRows: postgresJsonRows,
    rollupsBuiltInBackground: true,
    copyRows: async (trx, table, rows) => {
      if (rows.length === 0) return;
      let pid = transactionPids.get(trx);
      if (pid === undefined) {
        const { rows: found } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        pid = found[0]!.pid;
        transactionPids.set(trx, pid);
      }
      const client = clients.get(pid);
      if (!client) throw new Error("PostgreSQL store: the transaction's connection is not one of the pool's");
      await copyRows(client, table, rows);
    },
    analyseAfterBulkChange: analyseCurrentSchema,
    migrationSchema: async (db) => {
      const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
      const schema = rows[0]?.schema;
      if (!schema) throw new Error("PostgreSQL store: the connection's search_path names no existing schema");
      return schema;
    },
  };
}

/**
 * `ANALYZE` of every table of the connection's current schema (a bare `ANALYZE` would visit every
 * schema of the database). A partition is left to its partitioned table, whose `ANALYZE` studies
 * each partition as well as the whole.
 */
export async function analyseCurrentSchema(db: Kysely<Database>): Promise<void> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_class c
    where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p') and not c.relispartition`.execute(db);
  for (const { name } of rows) await sql`ANALYZE ${sql.table(name)}`.execute(db);
}
