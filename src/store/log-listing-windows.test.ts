import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { postgresTestUrl, TEST_DATABASES } from "../../test/support/databases.ts";
import type { LogRecord } from "../records/log-record.ts";
import { ID_MARGIN_MS, idBound } from "./log-id-bound.ts";
import { ensureDayPartitions } from "./log-partitions.ts";
import { LISTING_WINDOWS_MS, listingUpperMs, widening } from "./log-listing-windows.ts";
import { logRecord, scopeId, useStore } from "./store-test-fixtures.ts";

const DAY_MS = 86_400_000;
const NOW = Date.now();

describe("listing windows", () => {
  it("widens while a window holds fewer rows than a page and one more, then reads everything", async () => {
    const asked: Array<string | undefined> = [];
    const rows = await widening(10 * DAY_MS, 2, async (lowest) => {
      asked.push(lowest);
      return asked.length < 3 ? ["a", "b"] : ["a", "b", "c"];
    });
    expect(rows).toEqual(["a", "b", "c"]);
    expect(asked).toEqual([idBound(9 * DAY_MS), idBound(2 * DAY_MS), idBound(0)]);

    asked.length = 0;
    await widening(100 * DAY_MS, 2, async (lowest) => (asked.push(lowest), []));
    expect(asked).toEqual([...LISTING_WINDOWS_MS.map((span) => idBound(100 * DAY_MS - span)), undefined]);
  });

  it("starts from the cursor's time, else `to`, else now", () => {
    const cursor = logRecord(NOW - 5 * DAY_MS).id;
    expect(listingUpperMs({}, NOW)).toBe(NOW + ID_MARGIN_MS);
    expect(listingUpperMs({ to: new Date(NOW - DAY_MS).toISOString() }, NOW)).toBe(NOW - DAY_MS + ID_MARGIN_MS);
    expect(listingUpperMs({ before: cursor, to: new Date(NOW).toISOString() }, NOW)).toBe(NOW - 5 * DAY_MS);
    expect(listingUpperMs({ before: "0f8fad5b-d9cb-469f-a165-70867728950e" }, NOW)).toBeNaN();
  });
});

/** A workspace's logs: 60 in the last hour, then three each 3, 20 and 50 days ago; every third in team "a". */
function spread(workspaceId: string): LogRecord[] {
  const ages = [...Array.from({ length: 60 }, (_, i) => 60_000 * (i + 1)), ...[3, 20, 50].flatMap((days) => [0, 1, 2].map((i) => days * DAY_MS + i * 60_000))];
  return ages.map((age, i) => logRecord(NOW - age, { workspaceId, metadata: { team: i % 3 === 0 ? "a" : "b" } }));
}

describe.each(TEST_DATABASES)("logs listing across days on $name", ({ create }) => {
  const store = useStore(create);

  it("pages through every log of the workspace, newest first, recent or not", async () => {
    const workspaceId = scopeId("ws");
    const records = spread(workspaceId);
    await store().logs.insertBatch(records);
    const newestFirst = (list: LogRecord[]) => list.map((r) => r.id).sort().reverse();

    const pages = async (filters: { metadata?: Record<string, string> }, limit: number) => {
      const seen: string[] = [];
      let before: string | undefined;
      for (;;) {
        const page = await store().logs.list({ workspaceId, limit, before, ...filters });
        seen.push(...page.records.map((r) => r.id));
        if (!page.hasMore) return seen;
        expect(page.records).toHaveLength(limit);
        before = page.records.at(-1)!.id;
      }
    };
    expect(await pages({}, 7)).toEqual(newestFirst(records));
    expect(await pages({}, 100)).toEqual(newestFirst(records));
    expect(await pages({ metadata: { team: "a" } }, 4)).toEqual(newestFirst(records.filter((r) => r.metadata.team === "a")));

    const older = await store().logs.list({ workspaceId, limit: 2, to: new Date(NOW - 10 * DAY_MS).toISOString() });
    expect(older.records.map((r) => r.id)).toEqual(newestFirst(records).slice(63, 65));
    expect(older.hasMore).toBe(true);
  });
});

describe("logs listing on PostgreSQL", () => {
  const store = useStore(postgresTestUrl);

  it("fills a busy workspace's first page without opening older day partitions", async () => {
    const workspaceId = scopeId("ws");
    // The day of 20 days ago gets its partition (the store made those from yesterday on); the other days' logs go to the default one.
    await ensureDayPartitions(store().db, NOW - 20 * DAY_MS, NOW - 20 * DAY_MS);
    const records = spread(workspaceId);
    await store().logs.insertBatch(records);
    const oldDay = `logs_p${new Date(NOW - 20 * DAY_MS).toISOString().slice(0, 10).replaceAll("-", "")}`;

    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked: () => void = () => undefined;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    // Another session holds a day of 20 days ago: a query that plans over it waits for it.
    const holder = store().db.transaction().execute(async (trx) => {
      await sql`LOCK TABLE ${sql.table(oldDay)} IN ACCESS EXCLUSIVE MODE`.execute(trx);
      locked();
      await released;
    });
    await isLocked;
    try {
      const page = await Promise.race([
        store().logs.list({ workspaceId, limit: 50 }),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("the page waited for a day partition of 20 days ago")), 3_000)),
      ]);
      expect(page.records.map((r) => r.id)).toEqual(records.slice(0, 50).map((r) => r.id));
      expect(page.hasMore).toBe(true);
    } finally {
      release();
      await holder;
    }
  }, 20_000);
});
