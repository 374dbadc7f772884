import { Kysely, Migrator, sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { postgresTestUrl, type TestDatabase } from "../../test/support/databases.ts";
import { pickDialect } from "./dialects/pick-dialect.ts";
import { matchesLogFilters } from "./log-filters.ts";
import { DAYS_AHEAD, ensureDayPartitions } from "./log-partitions.ts";
import { deleteExpiredStep } from "./log-retention.ts";
import { toLogRow, toMetadataRows } from "./log-rows.ts";
import { staticMigrationProvider } from "./migrations/index.ts";
import { openStore, type Store } from "./open-store.ts";
import type { Database } from "./schema.ts";
import { logRecord, scopeId, useStore } from "./store-test-fixtures.ts";

const DAY = 86_400_000;
const NOW = Date.now();
const TODAY = Math.floor(NOW / DAY) * DAY;
const dayName = (table: string, ms: number) => `${table}_p${new Date(ms).toISOString().slice(0, 10).replaceAll("-", "")}`;

async function partitionOf(store: Store, table: "logs" | "log_metadata", column: string, id: string): Promise<string | undefined> {
  const { rows } = await sql<{ name: string }>`SELECT tableoid::regclass::text AS name FROM ${sql.table(table)} WHERE ${sql.ref(column)} = ${id}`.execute(store.db);
  return rows[0]?.name;
}

async function exists(store: Store, name: string): Promise<boolean> {
  const { rows } = await sql<{ found: string | null }>`SELECT to_regclass(${name}) AS found`.execute(store.db);
  return rows[0]?.found != null;
}

describe("PostgreSQL day partitions of the logs", () => {
  const store = useStore(postgresTestUrl);

  it("exist from yesterday to days ahead, beside a default, and today's logs land in today's with their metadata pairs", async () => {
    for (let day = TODAY - DAY; day <= TODAY + DAYS_AHEAD * DAY; day += DAY) {
      expect(await exists(store(), dayName("logs", day))).toBe(true);
      expect(await exists(store(), dayName("log_metadata", day))).toBe(true);
    }
    const record = logRecord(NOW, { workspaceId: scopeId("ws"), metadata: { team: "red", 'say "hi"\\': "a\"b" } });
    const ancient = logRecord(NOW - 400 * DAY, { workspaceId: record.workspaceId, metadata: {} });
    await store().logs.insertBatch([record, ancient]);
    expect(await partitionOf(store(), "logs", "id", record.id)).toBe(dayName("logs", TODAY));
    expect(await partitionOf(store(), "logs", "id", ancient.id)).toBe("logs_default");
    const { rows: pairs } = await sql<{ id: string; pairs: string[] }>`SELECT id, metadata_pairs AS pairs FROM logs WHERE workspace_id = ${record.workspaceId} ORDER BY id DESC`.execute(store().db);
    expect(pairs).toEqual([
      { id: record.id, pairs: ['"team"red', '"say \\"hi\\"\\\\"a"b'] },
      { id: ancient.id, pairs: [] },
    ]);
    // A retried batch is still skipped: the primary key holds across partitions.
    await store().logs.insertBatch([record, ancient]);
    expect(await store().logs.count(record.workspaceId)).toBe(2);
  });

  it("are created once when two gateways create the same days at the same moment", async () => {
    const from = TODAY + 20 * DAY;
    await Promise.all([ensureDayPartitions(store().db, from, from + 2 * DAY), ensureDayPartitions(store().db, from, from + 2 * DAY)]);
    for (const day of [0, 1, 2]) expect(await exists(store(), dayName("logs", from + day * DAY))).toBe(true);
  });

  it("give the analytics the same sums on the rollup path and the raw path across a day boundary, edges mid-hour", async () => {
    const workspaceId = scopeId("ws");
    const models = ["m-a", "m-b", "m-c"];
    const records = Array.from({ length: 120 }, (_, i) =>
      logRecord(TODAY - DAY + 30 * 60_000 + i * 17 * 60_000, { workspaceId, model: models[i % 3]!, latencyMs: 5 + i, metadata: {} }, i),
    );
    await store().logs.insertBatch(records);
    const from = new Date(TODAY - DAY + 95 * 60_000).toISOString();
    const to = new Date(TODAY + 7 * 3_600_000 + 20 * 60_000).toISOString();
    const inRange = records.filter((r) => r.createdAt >= from && r.createdAt < to);
    expect(new Set(inRange.map((r) => r.createdAt.slice(0, 10))).size).toBe(2);
    const selection = { workspaceId, from, to };
    for (const via of ["rollup", "raw"] as const) {
      const options = via === "raw" ? { via } : undefined;
      const byModel = await store().analytics.aggregate(selection, { kind: "group", by: "model" }, options);
      expect(Object.fromEntries([...byModel].map(([model, a]) => [model, a.requests]))).toEqual(
        Object.fromEntries(models.map((model) => [model, inRange.filter((r) => r.model === model).length])),
      );
      const total = (await store().analytics.aggregate(selection, { kind: "total" }, options)).get("");
      expect(total?.requests).toBe(inRange.length);
      expect(total?.latency.counts.reduce((a, b) => a + b, 0)).toBe(inRange.length);
    }
  });

  it("are read only for the days of a query's time range, logs and metadata alike", async () => {
    const filters = { workspaceId: "ws", from: new Date(TODAY + 3_600_000).toISOString(), to: new Date(TODAY + 2 * 3_600_000).toISOString(), metadata: { team: "red" } };
    const query = store().db.selectFrom("logs").select("id").where((eb) => matchesLogFilters(eb, filters, { idRange: true, pairsInRow: true })).compile();
    const { rows } = await store().db.executeQuery<{ "QUERY PLAN": string }>({ ...query, sql: `EXPLAIN ${query.sql}` });
    const plan = rows.map((row) => row["QUERY PLAN"]).join("\n");
    expect(plan).toContain(dayName("logs", TODAY));
    expect(plan).toContain(dayName("log_metadata", TODAY));
    for (const other of [dayName("logs", TODAY + 2 * DAY), dayName("log_metadata", TODAY + 2 * DAY), "logs_default", "log_metadata_default"]) expect(plan).not.toContain(other);
  });

  it("are dropped whole once expired, logs and metadata alike; the cutoff's day is kept whole until it has passed", async () => {
    const workspaceId = scopeId("ws");
    await ensureDayPartitions(store().db, NOW - 12 * DAY, NOW - 8 * DAY);
    const old = Array.from({ length: 30 }, (_, i) => logRecord(TODAY - 12 * DAY + i * 9 * 3_600_000, { workspaceId, metadata: { n: String(i) } }, i));
    const recent = logRecord(NOW - DAY, { workspaceId, metadata: { n: "recent" } });
    await store().logs.insertBatch([...old, recent]);
    const cutoff = TODAY - 9 * DAY + 12 * 3_600_000;

    const first = await deleteExpiredStep(store().db, cutoff, 1_000);
    expect(first.days).toBe(3);
    for (const day of [12, 11, 10]) {
      expect(await exists(store(), dayName("logs", TODAY - day * DAY))).toBe(false);
      expect(await exists(store(), dayName("log_metadata", TODAY - day * DAY))).toBe(false);
    }
    expect(await exists(store(), dayName("logs", TODAY - 9 * DAY))).toBe(true);
    // The day partly expired keeps all its rows: they go with its partitions once it has passed.
    const kept = old.filter((r) => Date.parse(r.createdAt) >= TODAY - 9 * DAY);
    expect(kept.some((r) => Date.parse(r.createdAt) < cutoff)).toBe(true);
    expect(await store().logs.count(workspaceId)).toBe(kept.length + 1);
    const { records: listed } = await store().logs.list({ workspaceId, limit: 100 });
    expect(listed.map((r) => r.metadata.n!).sort()).toEqual([...kept.map((r) => r.metadata.n!), "recent"].sort());
    const next = await deleteExpiredStep(store().db, TODAY - 8 * DAY + 2 * 60_000, 1_000);
    expect(next).toMatchObject({ days: 1, logs: 0 });
    expect(await store().logs.count(workspaceId)).toBe(old.filter((r) => Date.parse(r.createdAt) >= TODAY - 8 * DAY).length + 1);
  });
});

describe("an existing PostgreSQL store's logs after migration 0022", () => {
  let database: TestDatabase;
  afterAll(() => database?.cleanup());

  it("are moved into the day partitions in the background, and read as before once moved", async () => {
    database = await postgresTestUrl();
    const dialect = await pickDialect(database.url);
    const db = new Kysely<Database>({ dialect: dialect.dialect });
    await new Migrator({ db, provider: staticMigrationProvider, migrationTableSchema: await dialect.migrationSchema(db) }).migrateTo("0021_semantic_cache");
    const workspaceId = scopeId("ws");
    const records = Array.from({ length: 12_000 }, (_, i) => logRecord(NOW - 3 * DAY + i * 20_000, { workspaceId, metadata: { n: String(i % 7) } }, i));
    for (let i = 0; i < records.length; i += 500) {
      const chunk = records.slice(i, i + 500);
      // The rows as the store had them then: without the columns later migrations added (0045's experiment, 0047's
      // searches), which today's table type requires.
      const rows = chunk.map(toLogRow).map(({ experiment_id: _id, experiment_variant: _variant, web_searches: _searches, ...row }) => row);
      await db.insertInto("logs").values(rows as unknown as ReturnType<typeof toLogRow>[]).execute();
      await db.insertInto("log_metadata").values(chunk.flatMap(toMetadataRows)).execute();
    }
    await db.destroy();

    const store = await openStore(database.url);
    try {
      for (let waited = 0; (await exists(store, "logs_unpartitioned")) || (await exists(store, "log_metadata_unpartitioned")); waited += 100) {
        if (waited > 30_000) throw new Error("the old rows were not moved within 30 s");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await store.logs.count(workspaceId)).toBe(records.length);
      const { records: listed } = await store.logs.list({ workspaceId, limit: 3, metadata: { n: "3" } });
      expect(listed.map((r) => r.id)).toEqual(records.filter((r) => r.metadata.n === "3").map((r) => r.id).reverse().slice(0, 3));
      const oldest = records[0]!;
      expect(await partitionOf(store, "logs", "id", oldest.id)).toBe(dayName("logs", Math.floor(Date.parse(oldest.createdAt) / DAY) * DAY));
      const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM logs_default`.execute(store.db);
      expect(Number(rows[0]?.n)).toBe(0);
    } finally {
      await store.close();
    }
  });
});
