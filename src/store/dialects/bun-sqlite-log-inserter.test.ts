import { spawnSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { removeSqliteTestDatabase, sqliteTestUrl } from "../../../test/support/databases.ts";
import { openStore, type Store } from "../open-store.ts";
import { logRecord, scopeId } from "../store-test-fixtures.ts";

const T0 = Date.parse("2026-06-01T00:00:00.000Z");

describe("the log worker's Bun SQLite inserter", () => {
  let url: string;
  let store: Store | undefined;

  afterEach(async () => {
    await store?.close();
    await removeSqliteTestDatabase(url);
  });

  it("stores records in the store's file exactly as the repository reads them back, metadata included, and skips duplicates", async () => {
    url = sqliteTestUrl();
    store = await openStore(url);
    const workspaceId = scopeId("ws");
    const records = Array.from({ length: 25 }, (_, i) =>
      logRecord(T0 + i, { workspaceId, metadata: { team: i % 2 ? "odd" : "even", n: String(i) }, costUsd: i === 3 ? null : 0.000123 * i }),
    );
    // The inserter uses Bun's built-in SQLite, so it runs in a Bun process beside this one.
    const run = spawnSync("node_modules/.bin/bun", ["test/support/bun-log-inserter-run.ts", url], { input: JSON.stringify(records), encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);

    expect(await store.logs.count(workspaceId)).toBe(25);
    for (const record of [records[0]!, records[3]!, records[24]!]) {
      expect(await store.logs.get(record.id, workspaceId)).toEqual(record);
    }
    const odd = await store.logs.list({ workspaceId, metadata: { team: "odd" }, limit: 100 });
    expect(odd.records.map((record) => record.id).sort()).toEqual(records.filter((_, i) => i % 2).map((record) => record.id).sort());
  });
});
