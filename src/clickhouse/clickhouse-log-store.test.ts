import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLICKHOUSE_ENGINES, type ClickHouseEngine } from "../../test/support/clickhouse-engines.ts";
import { startOwnClickHouse } from "../../test/support/own-clickhouse.ts";
import type { AnalyticsSlice } from "../analytics/aggregate.ts";
import { logRecord, scopeId } from "../store/store-test-fixtures.ts";
import { connectClickHouse } from "./clickhouse-connection.ts";
import { createClickHouseLogsRepository } from "./clickhouse-logs-repository.ts";
import { CLICKHOUSE_MIGRATIONS, statementsFor } from "./clickhouse-migrations.ts";
import { parseClickHouseUrl } from "./clickhouse-url.ts";
import { openClickHouseLogStore, type ClickHouseLogStore } from "./open-clickhouse-log-store.ts";

const HOUR = 3_600_000;
const DAY = 86_400_000;

// The engine and store of the suite running now (the suites run one after the other).
let server: ClickHouseEngine;
let store: ClickHouseLogStore;

/** The workspace's total over a range, from the rollups (whole hours) and from the raw rows. */
async function totals(workspaceId: string, from: number, to: number) {
  const selection = { workspaceId, from: new Date(from).toISOString(), to: new Date(to).toISOString() };
  const slice: AnalyticsSlice = { kind: "total" };
  const rolled = (await store.analytics.aggregate(selection, slice)).get("");
  const raw = (await store.analytics.aggregate(selection, slice, { via: "raw" })).get("");
  return { rolled: rolled?.requests ?? 0, raw: raw?.requests ?? 0, tokens: rolled?.totalTokens ?? 0 };
}

describe.each(CLICKHOUSE_ENGINES)("ClickHouse log store on $engine", ({ start }) => {
  beforeAll(async () => {
    server = await start();
    store = await openClickHouseLogStore(await server.target("log_store_test"));
  });
  afterAll(async () => {
    await store?.close();
    await server?.remove();
  });

  it("stores a replayed batch once: rows and rollups count each record once", async () => {
    const workspaceId = scopeId("ws-replay");
    const start = Date.UTC(2026, 5, 1, 10);
    const batch = Array.from({ length: 200 }, (_, i) => logRecord(start + i * 60_000, { workspaceId }, i));
    // The first half landed before the writer lost its answer; the spool replays the whole batch, twice.
    await store.logs.insertBatch(batch.slice(0, 100));
    await store.logs.insertBatch(batch);
    await store.logs.insertBatch(batch);
    // A batch holding one record twice stores it once.
    const extra = logRecord(start + 300 * 60_000, { workspaceId }, 999);
    await store.logs.insertBatch([extra, extra]);
    expect(await store.logs.count(workspaceId)).toBe(201);
    expect(await totals(workspaceId, start, start + 6 * HOUR)).toEqual({ rolled: 201, raw: 201, tokens: 201 * 33 });
  });

  it("stores a batch split into parallel inserts once when replayed, over several id ranges", async () => {
    const workspaceId = scopeId("ws-replay-large");
    const other = scopeId("ws-replay-large-other");
    const start = Date.UTC(2026, 5, 2, 10);
    // 12,000 records, a second apart in three runs an hour apart: three id ranges, two inserts.
    const batch = Array.from({ length: 12_000 }, (_, i) =>
      logRecord(start + Math.floor(i / 4_000) * HOUR + (i % 4_000) * 100, { workspaceId: i % 3 === 0 ? other : workspaceId }, i),
    );
    await store.logs.insertBatch(batch.filter((_, i) => i % 5 === 0));
    await store.logs.insertBatch(batch);
    await store.logs.insertBatch([...batch].reverse());
    expect(await store.logs.count(workspaceId)).toBe(8_000);
    expect(await store.logs.count(other)).toBe(4_000);
    expect(await totals(workspaceId, start, start + 4 * HOUR)).toEqual({ rolled: 8_000, raw: 8_000, tokens: 8_000 * 33 });
  });

  it("counts each record once when a crash falls between a batch's two inserts, whether the second landed or not", async () => {
    const start = Date.UTC(2026, 5, 5, 10);
    const connection = await connectClickHouse(await server.target("log_store_test"));
    // A writer whose second insert of a batch lands (or not) and then loses its answer, once.
    const writerFailing = (lands: boolean) => {
      let inserts = 0;
      return createClickHouseLogsRepository(
        {
          ...connection,
          async insertTabSeparated(table, columns, chunks) {
            inserts += 1;
            if (inserts !== 2) return connection.insertTabSeparated(table, columns, chunks);
            if (lands) await connection.insertTabSeparated(table, columns, chunks);
            throw new Error(`lost the answer of an insert into ${table}`);
          },
        },
        async (_workspaceId, config) => config,
      );
    };
    for (const [i, lands] of [false, true].entries()) {
      const workspaceId = scopeId(`ws-crash-${i}`);
      // Two inserts (12,000 rows); the spool replays the batch twice.
      const batch = Array.from({ length: 12_000 }, (_, j) => logRecord(start + i * DAY + j * 500, { workspaceId, metadata: { team: `t-${j % 3}` } }, j));
      const writer = writerFailing(lands);
      await expect(writer.insertBatch(batch)).rejects.toThrow(/lost the answer/);
      await writer.insertBatch(batch);
      await writer.insertBatch(batch);
      expect(await store.logs.count(workspaceId)).toBe(12_000);
      expect(await totals(workspaceId, start + i * DAY, start + i * DAY + 3 * HOUR)).toEqual({ rolled: 12_000, raw: 12_000, tokens: 12_000 * 33 });
      const selection = { workspaceId, from: new Date(start + i * DAY).toISOString(), to: new Date(start + i * DAY + 3 * HOUR).toISOString() };
      const teams = await store.analytics.aggregate(selection, { kind: "group", by: "metadata", metadataKey: "team" });
      expect([...teams.values()].map((aggregate) => aggregate.requests)).toEqual([4_000, 4_000, 4_000]);
    }
    await connection.close();
  });

  it("keeps tabs, newlines, backslashes and quotes in strings, bodies and metadata", async () => {
    const workspaceId = scopeId("ws-escapes");
    const awkward = "a\tb\\c\nd\re'f\"g\\\\N \u00e9\u{1F600}";
    const record = logRecord(Date.UTC(2026, 5, 3), {
      workspaceId,
      user: awkward,
      model: `model ${awkward}`,
      requestBody: JSON.stringify({ text: awkward }),
      errorMessage: awkward,
      metadata: { [awkward]: awkward, "key'": "\\N", empty: "" },
    });
    await store.logs.insertBatch([record]);
    expect(await store.logs.get(record.id, workspaceId)).toEqual(record);
    const nulls = logRecord(Date.UTC(2026, 5, 3, 1), { workspaceId, user: null, model: null, requestBody: null, timeToFirstTokenMs: null, costUsd: null, metadata: {} });
    await store.logs.insertBatch([nulls]);
    expect(await store.logs.get(nulls.id, workspaceId)).toEqual(nulls);
  });

  it("rebuilds the rollups from the stored logs to the same answers", async () => {
    const workspaceId = scopeId("ws-rebuild");
    const start = Date.UTC(2026, 5, 4, 10);
    const records = Array.from({ length: 300 }, (_, i) => logRecord(start + i * 47_000, { workspaceId, metadata: i % 4 === 0 ? {} : { team: `t-${i % 3}` } }, i));
    await store.logs.insertBatch(records);
    const selection = { workspaceId, from: new Date(start).toISOString(), to: new Date(start + 5 * HOUR).toISOString() };
    const byTeam: AnalyticsSlice = { kind: "group", by: "metadata", metadataKey: "team" };
    // Costs as the API rounds them: float sums differ in their last digits with the order of adding.
    const teams = async (via?: "raw") =>
      [...(await store.analytics.aggregate(selection, byTeam, via && { via }))]
        .map(([key, aggregate]) => [key, { ...aggregate, costUsd: aggregate.costUsd.toFixed(10), costSavedUsd: aggregate.costSavedUsd.toFixed(10) }] as const)
        .sort(([a], [b]) => String(a).localeCompare(String(b)));
    const before = { total: await totals(workspaceId, start, start + 5 * HOUR), teams: await teams() };
    expect(before.total.rolled).toBe(300);
    expect(before.teams.map(([key]) => key)).toEqual([null, "t-0", "t-1", "t-2"].sort((a, b) => String(a).localeCompare(String(b))));
    expect(before.teams).toEqual(await teams("raw"));
    const connection = await connectClickHouse(await server.target("log_store_test"));
    for (const migration of CLICKHOUSE_MIGRATIONS.filter((m) => m.version >= 3)) for (const statement of await statementsFor(migration, connection)) await connection.command(statement);
    await connection.close();
    expect({ total: await totals(workspaceId, start, start + 5 * HOUR), teams: await teams() }).toEqual(before);
  });

  it("lists across the listing's time windows in id order, older records included", async () => {
    const workspaceId = scopeId("ws-windows");
    const now = Date.now();
    const ages = [10 * 60_000, 5 * HOUR, 3 * DAY, 20 * DAY, 200 * DAY, 800 * DAY];
    const records = ages.map((age, i) => logRecord(now - age, { workspaceId }, i));
    await store.logs.insertBatch(records);
    const pages: string[][] = [];
    let before: string | undefined;
    for (;;) {
      const { records: page, hasMore } = await store.logs.list({ workspaceId, limit: 2, ...(before && { before }) });
      pages.push(page.map((record) => record.id));
      if (!hasMore) break;
      before = page[page.length - 1]!.id;
    }
    expect(pages).toEqual([
      [records[0]!.id, records[1]!.id],
      [records[2]!.id, records[3]!.id],
      [records[4]!.id, records[5]!.id],
    ]);
  });

  it("lists a user's records from the hours the user appears in, few or many, with other filters, and nothing for a user never seen", async () => {
    const workspaceId = scopeId("ws-user-hours");
    const now = Date.now();
    // "rare" in three hours far apart; "busy" in forty consecutive hours (more runs of hours than
    // one statement reads), its 5xx ones in only the oldest few (the other filter leaves the
    // newest hours' counts short, so the listing reads on, more hours a step).
    const rare = [2 * HOUR, 9 * DAY, 45 * DAY].map((age, i) => logRecord(now - age, { workspaceId, user: "rare" }, i));
    const busy = Array.from({ length: 40 }, (_, i) =>
      logRecord(now - i * HOUR - 30 * 60_000, { workspaceId, user: "busy", status: i >= 36 ? 503 : 200, success: i < 36 }, 10 + i),
    );
    const sparse = Array.from({ length: 12 }, (_, i) => logRecord(now - i * 5 * HOUR - 10 * 60_000, { workspaceId, user: "sparse" }, 60 + i));
    const others = Array.from({ length: 40 }, (_, i) => logRecord(now - i * DAY - HOUR, { workspaceId, user: `other-${i}` }, 100 + i));
    await store.logs.insertBatch([...rare, ...busy, ...sparse, ...others]);
    const listAll = async (filters: { user: string; statusClass?: "5xx"; from?: string; to?: string }, limit = 2): Promise<string[]> => {
      const ids: string[] = [];
      let before: string | undefined;
      for (;;) {
        const { records: page, hasMore } = await store.logs.list({ workspaceId, ...filters, limit, ...(before && { before }) });
        ids.push(...page.map((record) => record.id));
        if (!hasMore) return ids;
        before = page[page.length - 1]!.id;
      }
    };
    const ids = (records: typeof rare) => records.map((record) => record.id);
    expect(await listAll({ user: "rare" })).toEqual(ids(rare));
    expect(await listAll({ user: "busy" })).toEqual(ids(busy));
    expect(await listAll({ user: "busy" }, 50)).toEqual(ids(busy));
    expect(await listAll({ user: "sparse" }, 5)).toEqual(ids(sparse));
    expect(await listAll({ user: "busy", statusClass: "5xx" })).toEqual(ids(busy.slice(36)));
    const from = new Date(now - 20 * HOUR).toISOString();
    const to = new Date(now - 10 * HOUR).toISOString();
    expect(await listAll({ user: "sparse", from, to })).toEqual(ids(sparse.slice(2, 4)));
    expect(await listAll({ user: "never" })).toEqual([]);
  });

  it("ranks end users by the whole hours of the range's partial days, the partial hours from the raw rows", async () => {
    const workspaceId = scopeId("ws-user-rank");
    const day = Date.UTC(2026, 4, 10);
    const cost = (usd: number) => ({ costUsd: usd });
    const records = [
      // "edges": costly only in whole hours of the partial first and last days.
      logRecord(day + 11 * HOUR + 5 * 60_000, { workspaceId, user: "edges", ...cost(0.5) }, 1),
      logRecord(day + 2 * DAY + 9 * HOUR, { workspaceId, user: "edges", ...cost(0.5) }, 2),
      // "middle": the whole middle day, less in all.
      logRecord(day + DAY + 3 * HOUR, { workspaceId, user: "middle", ...cost(0.6) }, 3),
      // "tail": in the partial hour at the range's end only.
      logRecord(day + 2 * DAY + 14 * HOUR + 5 * 60_000, { workspaceId, user: "tail", ...cost(0.4) }, 4),
      logRecord(day + 2 * DAY + 14 * HOUR + 6 * 60_000, { workspaceId, user: null, ...cost(0.2) }, 5),
    ];
    await store.logs.insertBatch(records);
    const selection = { workspaceId, from: new Date(day + 10 * HOUR + 30 * 60_000).toISOString(), to: new Date(day + 2 * DAY + 14 * HOUR + 20 * 60_000).toISOString() };
    // The groups kept, costliest first (the map's own order is the order they were summed in).
    const ranking = async (limit: number, via?: "raw") =>
      [...(await store.analytics.aggregate(selection, { kind: "group", by: "user", limit }, via && { via })).entries()]
        .map(([user, group]) => [user, group.requests, group.costUsd])
        .sort((a, b) => Number(b[2]) - Number(a[2]));
    expect(await ranking(1)).toEqual([["edges", 2, 1]]);
    expect(await ranking(3)).toEqual([["edges", 2, 1], ["middle", 1, 0.6], ["tail", 1, 0.4]]);
    expect(await ranking(4)).toEqual(await ranking(4, "raw"));
  });

  it("drops whole expired days of logs and rollups, keeping the day the cutoff falls in", async () => {
    const workspaceId = scopeId("ws-retention");
    const today = Math.floor(Date.now() / DAY) * DAY;
    const records = [5, 4, 3, 1].flatMap((days, i) => [logRecord(today - days * DAY + HOUR, { workspaceId }, i), logRecord(today - days * DAY + 20 * HOUR, { workspaceId }, i + 10)]);
    await store.logs.insertBatch(records);
    // The cutoff is three and a half days ago: days 5 and 4 are wholly expired, day 3 only partly.
    const cutoff = today - 3 * DAY + 12 * HOUR;
    let removed = 0;
    for (let step = await store.deleteExpiredStep(cutoff, 1_000); step.logs + step.rollups > 0; step = await store.deleteExpiredStep(cutoff, 1_000)) {
      removed += step.logs;
    }
    expect(removed).toBeGreaterThanOrEqual(4);
    const left = (await store.logs.list({ workspaceId, limit: 100 })).records.map((record) => record.id);
    expect(left).toEqual(records.slice(4).map((record) => record.id).reverse());
    expect(await totals(workspaceId, today - 6 * DAY, today + DAY)).toEqual({ rolled: 4, raw: 4, tokens: 4 * 33 });
    // The end users' hour rows of a dropped day went with it (their day rows go with their 30-day block).
    const partial = { workspaceId, from: new Date(today - 5 * DAY + 30 * 60_000).toISOString(), to: new Date(today - 5 * DAY + 23 * HOUR).toISOString() };
    const byUser = async (via?: "raw") => [...(await store.analytics.aggregate(partial, { kind: "group", by: "user" }, via && { via })).values()].map((group) => group.requests);
    expect(await byUser("raw")).toEqual([]);
    expect(await byUser()).toEqual([]);
    // Each retention step is a round of partition drops and mutations in the in-process engine: slow on a busy machine.
  }, 120_000);

});

describe("ClickHouse log store URL", () => {
  it("never shows the password in a failure", async () => {
    const own = await startOwnClickHouse();
    const url = (await own.database("log_store_test")).replace(/:[^:@/]+@/, ":wrong-password-123@");
    const failure = await openClickHouseLogStore(url).then(
      () => null,
      (error: unknown) => error,
    );
    await own.remove();
    expect(failure).toBeInstanceOf(Error);
    expect(String((failure as Error).message)).not.toContain("wrong-password-123");
    expect(() => parseClickHouseUrl("ftp://user:hunter2@host/db")).toThrow(/http/);
    expect(() => parseClickHouseUrl("http://user:hunter2@host/db;drop")).toThrow(expect.objectContaining({ message: expect.not.stringContaining("hunter2") }));
    const target = parseClickHouseUrl("https://reader:p%40ss@ch.internal:8443/gateway_logs");
    expect(target).toEqual({ endpoint: "https://ch.internal:8443", username: "reader", password: "p@ss", database: "gateway_logs" });
    await expect(connectClickHouse({ ...target, endpoint: "http://127.0.0.1:1" })).rejects.toThrow(expect.objectContaining({ message: expect.not.stringContaining("p@ss") }));
  });
});
