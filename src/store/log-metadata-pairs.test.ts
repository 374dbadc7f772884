import { describe, expect, it } from "vitest";
import { postgresTestUrl } from "../../test/support/databases.ts";
import type { LogRecord } from "../records/log-record.ts";
import { metadataPair, metadataPairsLiteral } from "./log-metadata-pairs.ts";
import { insertAsBefore0029, logRecord, scopeId, useStore } from "./store-test-fixtures.ts";

const HOUR = 3_600_000;

describe("metadata pairs as an array literal", () => {
  it("quotes every pair and escapes quotes and backslashes, whatever the key holds", () => {
    expect(metadataPairsLiteral({})).toBe("{}");
    expect(metadataPairsLiteral({ team: "red" })).toBe('{"\\"team\\"red"}');
    expect(metadataPairsLiteral({ 'a"b': "c\\d", "{x,y}": "NULL" })).toBe('{"\\"a\\\\\\"b\\"c\\\\d","\\"{x,y}\\"NULL"}');
  });

  it("writes U+0000 of a key as U+FFFD, as the store does for every string", () => {
    expect(metadataPair("a\u0000b", "x")).toBe(metadataPair("a\uFFFDb", "x"));
  });

  it("never lets one key and value read as another", () => {
    expect(metadataPair("a", '"b"c')).not.toBe(metadataPair('a"b', "c"));
    expect(metadataPair("team", "x")).not.toBe(metadataPair("tea", "mx"));
  });
});

describe("PostgreSQL logs with their metadata pairs in the row, beside logs stored before", () => {
  const store = useStore(postgresTestUrl);
  const T0 = Date.now() - 6 * HOUR;
  const teams = ["red", "blue", 'gr"een\\'];

  /** 60 logs stored before 0029 (the older ones), then 60 stored since, a minute apart. */
  async function fill(workspaceId: string): Promise<LogRecord[]> {
    const records = Array.from({ length: 120 }, (_, i) =>
      logRecord(T0 + i * 60_000, { workspaceId, metadata: i % 5 === 0 ? {} : { team: teams[i % 3]!, 'tier "x"': i % 2 === 0 ? "even" : "odd" } }, i),
    );
    await insertAsBefore0029(store(), records.slice(0, 60));
    await store().logs.insertBatch(records.slice(60));
    return records;
  }

  it("lists the logs of a filter across both, newest first, page by page", async () => {
    const workspaceId = scopeId("ws");
    const records = await fill(workspaceId);
    for (const metadata of [{ team: teams[2]! }, { team: "red", 'tier "x"': "odd" }] as Array<Record<string, string>>) {
      const expected = records.filter((r) => Object.entries(metadata).every(([k, v]) => r.metadata[k] === v)).map((r) => r.id).reverse();
      const seen: string[] = [];
      let before: string | undefined;
      for (;;) {
        const page = await store().logs.list({ workspaceId, limit: 7, metadata, ...(before ? { before } : {}) });
        seen.push(...page.records.map((r) => r.id));
        if (!page.hasMore) break;
        before = page.records.at(-1)!.id;
      }
      expect(seen).toEqual(expected);
      expect(expected.some((id) => records.findIndex((r) => r.id === id) < 60)).toBe(true);
      expect(expected.some((id) => records.findIndex((r) => r.id === id) >= 60)).toBe(true);
    }
  });

  it("counts and groups both in the analytics, on the raw rows and through the rollups", async () => {
    const workspaceId = scopeId("ws");
    const records = await fill(workspaceId);
    const selection = { workspaceId, from: new Date(T0 - HOUR).toISOString(), to: new Date(T0 + 3 * HOUR).toISOString() };
    for (const options of [{ via: "raw" as const }, undefined]) {
      const groups = await store().analytics.aggregate(selection, { kind: "group", by: "metadata", metadataKey: "team" }, options);
      const expected: Record<string, number> = {};
      for (const r of records) expected[r.metadata.team ?? "null"] = (expected[r.metadata.team ?? "null"] ?? 0) + 1;
      expect(Object.fromEntries([...groups].map(([team, aggregate]) => [team ?? "null", aggregate.requests]))).toEqual(expected);
      const odd = await store().analytics.aggregate({ ...selection, metadata: { 'tier "x"': "odd" } }, { kind: "total" }, options);
      expect(odd.get("")?.requests).toBe(records.filter((r) => r.metadata['tier "x"'] === "odd").length);
    }
  });

  it("stores the pairs of a retried batch's new records once, and matches a value holding U+0000 as stored", async () => {
    const workspaceId = scopeId("ws");
    const first = [logRecord(T0, { workspaceId, metadata: { k: "a" } }, 1)];
    await store().logs.insertBatch(first);
    const fresh = logRecord(T0 + 1000, { workspaceId, metadata: { k: "b\u0000c" } }, 2);
    // The copy fails on the stored record; the batch is then inserted row by row.
    await store().logs.insertBatch([...first, fresh]);
    expect((await store().logs.list({ workspaceId, limit: 10, metadata: { k: "b\u0000c" } })).records.map((r) => r.id)).toEqual([fresh.id]);
    expect((await store().logs.list({ workspaceId, limit: 10, metadata: { k: "a" } })).records.map((r) => r.id)).toEqual([first[0]!.id]);
    const selection = { workspaceId, from: new Date(T0 - HOUR).toISOString(), to: new Date(T0 + HOUR).toISOString() };
    const groups = await store().analytics.aggregate(selection, { kind: "group", by: "metadata", metadataKey: "k" }, { via: "raw" });
    expect(Object.fromEntries([...groups].map(([value, aggregate]) => [value, aggregate.requests]))).toEqual({ a: 1, "b\uFFFDc": 1 });
  });
});
