import { afterEach, describe, expect, it } from "vitest";
import { Kysely, sql } from "kysely";
import { Client } from "pg";
import { createPostgresDialect } from "./postgres.ts";
import { testPostgresUrl } from "../../../test/support/services.ts";

const ADMIN_URL = testPostgresUrl();
const opened: Kysely<unknown>[] = [];

afterEach(async () => {
  for (const db of opened.splice(0)) await db.destroy();
});

describe("the PostgreSQL dialect when the server goes away", () => {
  // A server stopping (or a backend killed) while the pool has lent a client out: the client
  // emits `error` on itself. Unhandled, that is an uncaught exception that ends the gateway;
  // the work must fail instead, and the next query work on a fresh connection.
  it("fails the transaction, does not throw out of the process, and reconnects", async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", onUncaught);
    const db = new Kysely<unknown>({ dialect: createPostgresDialect(ADMIN_URL).dialect });
    opened.push(db);
    const admin = new Client({ connectionString: ADMIN_URL });
    await admin.connect();
    try {
      // Between two statements of a transaction the client is lent out with no query running:
      // the server's goodbye then reaches no query, only the client's own `error` event.
      const inTransaction = db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        await admin.query("select pg_terminate_backend($1)", [rows[0]?.pid]);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await sql`select 1`.execute(trx);
      });
      expect(await inTransaction.then(() => "committed", (error: unknown) => (error instanceof Error ? error.message : String(error)))).not.toBe("committed");
      expect(uncaught).toEqual([]);
      const again = await sql<{ one: number }>`select 1 as one`.execute(db);
      expect(again.rows[0]?.one).toBe(1);
    } finally {
      process.off("uncaughtException", onUncaught);
      await admin.end();
    }
  });
});
