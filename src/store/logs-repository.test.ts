import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import type { LogRecord } from "../records/log-record.ts";
import { logRecord, scopeId, useStore } from "./store-test-fixtures.ts";

const T0 = Date.parse("2026-05-01T00:00:00.000Z");

/** `count` records of one workspace, in random order, 2 metadata pairs each. */
function batch(workspaceId: string, count: number): LogRecord[] {
  const records = Array.from({ length: count }, (_, i) =>
    logRecord(T0 + Math.floor(i / 3), { workspaceId, metadata: { n: String(i), parity: String(i % 2) } }, i % 3),
  );
  return records.sort(() => Math.random() - 0.5);
}

describe.each(TEST_DATABASES)("logs repository on $name", ({ create }) => {
  const store = useStore(create);

  it("writes 1,200 records in one batch (across insert chunks) and pages through all of them", async () => {
    const workspaceId = scopeId("ws");
    const records = batch(workspaceId, 1200);
    await store().logs.insertBatch(records);
    expect(await store().logs.count(workspaceId)).toBe(1200);

    const seen: string[] = [];
    let before: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await store().logs.list({ workspaceId, limit: 97, before });
      seen.push(...page.records.map((r) => r.id));
      pages += 1;
      if (!page.hasMore) break;
      expect(page.records).toHaveLength(97);
      before = page.records.at(-1)?.id;
    }
    expect(pages).toBe(Math.ceil(1200 / 97));
    expect(seen).toEqual(records.map((r) => r.id).sort().reverse());

    const last = records.find((r) => r.metadata.n === "1199");
    const byMetadata = await store().logs.list({ workspaceId, limit: 10, metadata: { n: "1199", parity: "1" } });
    expect(byMetadata.records.map((r) => r.id)).toEqual([last?.id]);
  });

  it("lists records without bodies and gets one with every field, bodies included", async () => {
    const workspaceId = scopeId("ws");
    const full = logRecord(T0, {
      workspaceId,
      stream: true,
      success: false,
      status: 502,
      costUsd: null,
      timeToFirstTokenMs: null,
      user: null,
      errorCode: "upstream_unreachable",
      errorMessage: "connect ECONNREFUSED",
      metadata: { "x.y": "a=b", empty: "" },
    });
    await store().logs.insertBatch([full]);
    const { records, hasMore } = await store().logs.list({ workspaceId, limit: 10 });
    expect(hasMore).toBe(false);
    expect(records).toEqual([{ ...full, requestBody: null, responseBody: null }]);
    expect(await store().logs.get(full.id, workspaceId)).toEqual(full);

    const priced = logRecord(T0 + 1, { workspaceId, latencyMs: 1234.567, costUsd: 0.00042 });
    await store().logs.insertBatch([priced]);
    expect(await store().logs.get(priced.id, workspaceId)).toEqual(priced);
  });

  it("keeps each workspace's logs to itself", async () => {
    const mine = scopeId("ws");
    const theirs = scopeId("ws");
    const record = logRecord(T0 + 5, { workspaceId: mine });
    await store().logs.insertBatch([record, logRecord(T0 + 6, { workspaceId: theirs })]);
    expect(await store().logs.get(record.id, theirs)).toBeUndefined();
    expect(await store().logs.get(record.id, mine)).toEqual(record);
    const listed = await store().logs.list({ workspaceId: theirs, limit: 10 });
    expect(listed.records.map((r) => r.workspaceId)).toEqual([theirs]);
    expect(await store().logs.count(mine)).toBe(1);
  });

  it("skips records already stored, so a retried batch succeeds without duplicates", async () => {
    const workspaceId = scopeId("ws");
    const first = batch(workspaceId, 3);
    await store().logs.insertBatch(first);
    const total = await store().logs.count();
    await store().logs.insertBatch([...first, logRecord(T0 + 9, { workspaceId })]);
    expect(await store().logs.count(workspaceId)).toBe(4);
    expect(await store().logs.count()).toBe(total + 1);
    await store().logs.insertBatch([]);
    expect(await store().logs.count()).toBe(total + 1);
  });

  it("writes a batch all or nothing (on PostgreSQL each half of a big batch), and its retry stores each record once", async () => {
    const workspaceId = scopeId("ws");
    const records = batch(workspaceId, 600);
    // A NOT NULL violation in the second insert chunk must undo the first chunk too. On
    // PostgreSQL the 551 records are copied as two halves, 276 and 275, each in its own
    // transaction: the broken record's half is undone, the other one stays.
    const broken = { ...records[550], route: null } as unknown as LogRecord;
    await expect(store().logs.insertBatch([...records.slice(0, 550), broken])).rejects.toThrow();
    const halves = store().dialect === "postgres";
    expect(await store().logs.count(workspaceId)).toBe(halves ? 276 : 0);
    const failedHalf = records.slice(halves ? 276 : 0, 550);
    for (const record of failedHalf.slice(0, 5)) {
      const { records: listed } = await store().logs.list({ workspaceId, limit: 5, metadata: { n: record.metadata.n! } });
      expect(listed).toEqual([]);
    }
    // The batch written again, repaired: every record once, the stored half skipped.
    await store().logs.insertBatch(records.slice(0, 551));
    expect(await store().logs.count(workspaceId)).toBe(551);
    const { records: one } = await store().logs.list({ workspaceId, limit: 5, metadata: { n: records[0]!.metadata.n! } });
    expect(one.map((record) => record.id)).toEqual([records[0]!.id]);
  });

  it("stores a failed big batch's parts whole or not at all (on PostgreSQL), and its retry every record once", async () => {
    const workspaceId = scopeId("ws");
    const records = batch(workspaceId, 5_000);
    // On PostgreSQL four parts of 1,250, two at once; the second holds the broken record. The
    // first is stored, the second undone, and no part starts after the failure but one already under way.
    const broken = { ...records[1_300], route: null } as unknown as LogRecord;
    await expect(store().logs.insertBatch([...records.slice(0, 1_300), broken, ...records.slice(1_301)])).rejects.toThrow();
    const stored = await store().logs.count(workspaceId);
    expect(store().dialect === "postgres" ? [1_250, 2_500] : [0]).toContain(stored);
    await store().logs.insertBatch(records);
    expect(await store().logs.count(workspaceId)).toBe(5_000);
    const { records: listed } = await store().logs.list({ workspaceId, limit: 5, metadata: { n: records[1_300]!.metadata.n! } });
    expect(listed.map((record) => record.id)).toEqual([records[1_300]!.id]);
  });

  it("does not return an unknown id", async () => {
    expect(await store().logs.get(logRecord(T0 + 99).id, scopeId("ws"))).toBeUndefined();
  });
});
