import { describe, expect, it } from "vitest";
import { postgresTestUrl } from "../../../test/support/databases.ts";
import { LATENCY_COLUMNS, toRollupRows } from "../log-rollup-rows.ts";
import { logRecord, scopeId, useStore } from "../store-test-fixtures.ts";
import { rollupsJson } from "./postgres-json-rows.ts";

const T0 = Date.parse("2026-05-01T10:00:00.000Z");

describe("PostgreSQL's one-statement batch writes", () => {
  const store = useStore(postgresTestUrl);

  it("store U+0000, which PostgreSQL text cannot hold, as U+FFFD in the log, its metadata and its rollups", async () => {
    const workspaceId = scopeId("ws");
    const record = logRecord(T0, { workspaceId, user: "a\u0000b", errorMessage: "bad\u0000", metadata: { "k\u0000": "v\u0000", plain: "x" } });
    await store().logs.insertBatch([record]);
    const stored = await store().logs.get(record.id, workspaceId);
    expect(stored?.user).toBe("a\uFFFDb");
    expect(stored?.errorMessage).toBe("bad\uFFFD");
    // The record's metadata column is JSON text, where U+0000 is the escape `\u0000`: kept whole.
    expect(stored?.metadata).toEqual(record.metadata);
    const { records: byMetadata } = await store().logs.list({ workspaceId, limit: 5, metadata: { "k\u0000": "v\u0000" } });
    expect(byMetadata.map((r) => r.id)).toEqual([record.id]);
    const rollup = await store().db.selectFrom("log_rollups").select(["value", "requests"]).where("workspace_id", "=", workspaceId).where("dim", "=", "user").execute();
    expect(rollup).toEqual([{ value: "=a\uFFFDb", requests: 1 }]);
  });

  it("keep a text that spells `\\u0000` (a backslash, not U+0000) as it is", async () => {
    const workspaceId = scopeId("ws");
    const record = logRecord(T0, { workspaceId, errorMessage: "literally \\u0000", user: "u\u0000" });
    await store().logs.insertBatch([record]);
    expect((await store().logs.get(record.id, workspaceId))?.errorMessage).toBe("literally \\u0000");
  });

  it("send only the non-zero histogram counts, and the stored rows still hold every count", async () => {
    const workspaceId = scopeId("ws");
    const records = [10, 10, 2_000].map((latencyMs, i) => logRecord(T0 + i, { workspaceId, latencyMs, timeToFirstTokenMs: null, user: null }));
    const json = JSON.parse(rollupsJson(toRollupRows(records))) as Array<Record<string, unknown>>;
    const all = json.find((row) => row.dim === "all")!;
    expect(Object.keys(all).filter((key) => key.startsWith("lat_"))).toHaveLength(2);

    await store().logs.insertBatch(records.slice(0, 2));
    await store().logs.insertBatch(records.slice(2));
    const row = await store().db.selectFrom("log_rollups").selectAll().where("workspace_id", "=", workspaceId).where("dim", "=", "all").executeTakeFirstOrThrow();
    const counts = LATENCY_COLUMNS.map((column) => row[column]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(3);
    expect(counts.filter((count) => count > 0).sort()).toEqual([1, 2]);
    expect([row.requests, row.latency_min, row.latency_max, row.ttft_min, row.ttft_max]).toEqual([3, 10, 2_000, null, null]);
  });
});
