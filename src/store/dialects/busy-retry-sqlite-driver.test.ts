import { CompiledQuery, type SqliteDatabase } from "kysely";
import { describe, expect, it } from "vitest";
import { BUSY_DEADLINE_MS, BusyRetrySqliteDriver } from "./busy-retry-sqlite-driver.ts";

const busy = () => Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });

/** A database whose writes fail with SQLITE_BUSY while `locked`; reads always pass (WAL). */
function fakeDatabase(state: { locked: boolean; ran: string[] }): SqliteDatabase {
  return {
    close: () => undefined,
    prepare: (sql) => ({
      reader: sql.startsWith("select"),
      all: () => {
        state.ran.push(sql);
        return [{ one: 1 }];
      },
      run: () => {
        if (state.locked) throw busy();
        state.ran.push(sql);
        return { changes: 1, lastInsertRowid: 1 };
      },
      iterate: () => [][Symbol.iterator](),
    }),
  };
}

async function execute(driver: BusyRetrySqliteDriver, sql: string) {
  const connection = await driver.acquireConnection();
  try {
    return await connection.executeQuery(CompiledQuery.raw(sql));
  } finally {
    await driver.releaseConnection();
  }
}

describe("BusyRetrySqliteDriver", () => {
  it("retries a locked write asynchronously, lending the connection to reads meanwhile", async () => {
    const state = { locked: true, ran: [] as string[] };
    const driver = new BusyRetrySqliteDriver(fakeDatabase(state));
    const write = execute(driver, "insert into t values (1)");
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The write is waiting; a read still gets the connection.
    expect((await execute(driver, "select 1")).rows).toEqual([{ one: 1 }]);
    expect(state.ran).toEqual(["select 1"]);
    state.locked = false;
    await expect(write).resolves.toMatchObject({ numAffectedRows: 1n });
    expect(state.ran).toEqual(["select 1", "insert into t values (1)"]);
  });

  it("gives up with SQLITE_BUSY once the deadline passes", async () => {
    let now = 0;
    // Each reading of the clock is a second later: the deadline passes after a few tries.
    const driver = new BusyRetrySqliteDriver(fakeDatabase({ locked: true, ran: [] }), () => (now += 1_000));
    await expect(execute(driver, "insert into t values (1)")).rejects.toMatchObject({ code: "SQLITE_BUSY" });
    expect(now).toBeGreaterThan(BUSY_DEADLINE_MS);
  });

  it("does not retry inside a transaction: the transaction took the lock at its BEGIN", async () => {
    const state = { locked: false, ran: [] as string[] };
    const driver = new BusyRetrySqliteDriver(fakeDatabase(state));
    const connection = await driver.acquireConnection();
    await driver.beginTransaction(connection);
    state.locked = true;
    const started = performance.now();
    await expect(connection.executeQuery(CompiledQuery.raw("insert into t values (2)"))).rejects.toMatchObject({ code: "SQLITE_BUSY" });
    expect(performance.now() - started).toBeLessThan(50);
    await driver.rollbackTransaction(connection).catch(() => undefined);
    await driver.releaseConnection();
  });
});
