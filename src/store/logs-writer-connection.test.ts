import { afterEach, describe, expect, it } from "vitest";
import { TEST_DATABASES, type TestDatabase } from "../../test/support/databases.ts";
import { openLogsStore, type LogsStore } from "./open-logs-store.ts";
import { openStore, type Store } from "./open-store.ts";
import { logRecord, scopeId } from "./store-test-fixtures.ts";

const T0 = Date.parse("2026-06-01T00:00:00.000Z");

describe.each(TEST_DATABASES)("a log writer's own connection on $name", ({ create }) => {
  let database: TestDatabase | undefined;
  let store: Store | undefined;
  let writer: LogsStore | undefined;

  afterEach(async () => {
    await writer?.close();
    await store?.close();
    await database?.cleanup();
  });

  it("stores records as the store reads them back, metadata included, and skips duplicates", async () => {
    database = await create();
    store = await openStore(database.url);
    writer = await openLogsStore(database.url);
    const workspaceId = scopeId("ws");
    const records = Array.from({ length: 25 }, (_, i) =>
      logRecord(T0 + i, { workspaceId, metadata: { team: i % 2 ? "odd" : "even", n: String(i) }, costUsd: i === 3 ? null : 0.000123 * i, attempts: i === 4 ? [] : logRecord(T0).attempts }),
    );
    await writer.logs.insertBatch(records);
    await writer.logs.insertBatch(records.slice(0, 5));

    expect(await store.logs.count(workspaceId)).toBe(25);
    for (const record of [records[0]!, records[3]!, records[4]!, records[24]!]) {
      expect(await store.logs.get(record.id, workspaceId)).toEqual(record);
    }
    const odd = await store.logs.list({ workspaceId, metadata: { team: "odd" }, limit: 100 });
    expect(odd.records.map((record) => record.id).sort()).toEqual(records.filter((_, i) => i % 2).map((record) => record.id).sort());
  });
});
