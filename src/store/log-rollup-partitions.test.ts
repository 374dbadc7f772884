import { Kysely, Migrator, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { postgresTestUrl, type TestDatabase } from "../../test/support/databases.ts";
import { pickDialect } from "./dialects/pick-dialect.ts";
import { DAYS_AHEAD, ensureDayPartitions } from "./log-partitions.ts";
import { deleteExpiredStep } from "./log-retention.ts";
import { logRollupsPartitioned, partitionLogRollups } from "./log-rollup-partitions.ts";
import { buildClosedRollupHours } from "./log-rollup-build.ts";
import { createLogsRepository } from "./logs-repository.ts";
import { staticMigrationProvider } from "./migrations/index.ts";
import { openStore } from "./open-store.ts";
import type { Database } from "./schema.ts";
import { logRecord, scopeId, useStore } from "./store-test-fixtures.ts";

const DAY = 86_400_000;
const HOUR = 3_600_000;
const NOW = Date.now();
const TODAY = Math.floor(NOW / DAY) * DAY;
const dayName = (table: string, ms: number) => `${table}_p${new Date(ms).toISOString().slice(0, 10).replaceAll("-", "")}`;

async function exists(db: Kysely<Database>, name: string): Promise<boolean> {
  const { rows } = await sql<{ found: string | null }>`SELECT to_regclass(${name}) AS found`.execute(db);
  return rows[0]?.found != null;
}

async function rowsIn(db: Kysely<Database>, table: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db);
  return Number(rows[0]?.n);
}

/** A store migrated to the latest schema without being opened: `log_rollups` is still the plain table the migrations create. */
async function migratedOnly(database: TestDatabase): Promise<{ db: Kysely<Database>; dialect: Awaited<ReturnType<typeof pickDialect>> }> {
  const dialect = await pickDialect(database.url);
  const db = new Kysely<Database>({ dialect: dialect.dialect });
  await new Migrator({ db, provider: staticMigrationProvider, migrationTableSchema: await dialect.migrationSchema(db) }).migrateToLatest();
  return { db, dialect };
}

describe("PostgreSQL day partitions of the rollups", () => {
  const store = useStore(postgresTestUrl);

  it("exist with the logs' from a new store's start, and a closed hour's rollups land in its day's", async () => {
    expect(await logRollupsPartitioned(store().db)).toBe(true);
    for (let day = TODAY - DAY; day <= TODAY + DAYS_AHEAD * DAY; day += DAY) expect(await exists(store().db, dayName("log_rollups", day))).toBe(true);
    expect(await exists(store().db, "log_rollups_default")).toBe(true);
    // No statistics on the sums: `ANALYZE` then studies only the key columns of each partition.
    const { rows: studied } = await sql<{ column: string }>`
      SELECT attname AS column FROM pg_attribute WHERE attrelid = ${dayName("log_rollups", TODAY + DAYS_AHEAD * DAY)}::regclass AND attnum > 0 AND NOT attisdropped AND attstattarget <> 0`.execute(store().db);
    expect(studied.map((row) => row.column).sort()).toEqual(["dim", "hour", "success", "value", "workspace_id"]);
    const workspaceId = scopeId("ws");
    const hourAgo = Math.floor((NOW - 2 * HOUR) / HOUR) * HOUR;
    await store().logs.insertBatch([logRecord(hourAgo + 60_000, { workspaceId })]);
    await buildClosedRollupHours(store().db, NOW);
    const { rows } = await sql<{ name: string }>`SELECT DISTINCT tableoid::regclass::text AS name FROM log_rollups WHERE workspace_id = ${workspaceId} AND dim NOT LIKE 'day:%'`.execute(store().db);
    expect(rows.map((row) => row.name)).toEqual([dayName("log_rollups", Math.floor(hourAgo / DAY) * DAY)]);
  });

  it("are dropped whole with the logs' once their day ended before the cutoff", async () => {
    const workspaceId = scopeId("ws");
    await ensureDayPartitions(store().db, TODAY - 12 * DAY, TODAY - 8 * DAY);
    expect(await exists(store().db, dayName("log_rollups", TODAY - 12 * DAY))).toBe(true);
    // Rows of days already built: the writer adds their rollups itself.
    await store().logs.insertBatch([logRecord(TODAY - 12 * DAY + HOUR, { workspaceId }), logRecord(TODAY - 9 * DAY + HOUR, { workspaceId })]);
    expect(await rowsIn(store().db, dayName("log_rollups", TODAY - 12 * DAY))).toBeGreaterThan(0);
    await deleteExpiredStep(store().db, TODAY - 9 * DAY + 12 * HOUR, 1_000);
    for (const day of [12, 11, 10]) expect(await exists(store().db, dayName("log_rollups", TODAY - day * DAY))).toBe(false);
    expect(await rowsIn(store().db, dayName("log_rollups", TODAY - 9 * DAY))).toBeGreaterThan(0);
  });
});

describe("an existing PostgreSQL store's rollups", () => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.cleanup();
    database = undefined;
  });

  it("become the first partition, rows in place, in the background; answers, later days and retention as before", async () => {
    database = await postgresTestUrl();
    const { db, dialect } = await migratedOnly(database);
    const workspaceId = scopeId("ws");
    // Three days of logs before `built_until` (the migration's hour): the writer sums them into the plain table.
    const records = Array.from({ length: 300 }, (_, i) => logRecord(NOW - 3 * DAY + i * 13 * 60_000, { workspaceId, model: i % 2 ? "m-a" : "m-b" }, i)).filter(
      (record) => Date.parse(record.createdAt) < Math.floor(NOW / HOUR) * HOUR,
    );
    await createLogsRepository(db, dialect).insertBatch(records);
    const rollupRows = await rowsIn(db, "log_rollups");
    expect(rollupRows).toBeGreaterThan(0);
    // A check left by an earlier start whose day is too close: it is replaced, not trusted.
    await sql`ALTER TABLE log_rollups ADD CONSTRAINT log_rollups_hour_before CHECK (hour < ${sql.lit(new Date(TODAY + DAY).toISOString())}) NOT VALID`.execute(db);
    await db.destroy();

    const store = await openStore(database.url);
    try {
      for (let waited = 0; !(await logRollupsPartitioned(store.db)); waited += 100) {
        if (waited > 30_000) throw new Error("log_rollups was not partitioned within 30 s");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const first = dayName("log_rollups_until", TODAY + DAY);
      expect(await rowsIn(store.db, first)).toBe(rollupRows);
      const { rows: studied } = await sql<{ n: string }>`SELECT count(*) AS n FROM pg_attribute WHERE attrelid = ${first}::regclass AND attnum > 0 AND attstattarget <> 0`.execute(store.db);
      expect(Number(studied[0]?.n)).toBe(5);
      // Test schemas share one database: count this schema's checks only.
      const { rows: checks } = await sql<{ n: string }>`SELECT count(*) AS n FROM pg_constraint WHERE conname = 'log_rollups_hour_before' AND connamespace = current_schema()::regnamespace`.execute(store.db);
      expect(Number(checks[0]?.n)).toBe(0);
      for (let waited = 0; !(await exists(store.db, dayName("log_rollups", TODAY + 2 * DAY))); waited += 100) {
        if (waited > 10_000) throw new Error("the rollups' day partitions were not created");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await exists(store.db, dayName("log_rollups", TODAY))).toBe(false);

      const selection = { workspaceId, from: new Date(NOW - 4 * DAY).toISOString(), to: new Date(NOW).toISOString() };
      for (const via of ["rollup", "raw"] as const) {
        const byModel = await store.analytics.aggregate(selection, { kind: "group", by: "model" }, via === "raw" ? { via } : undefined);
        expect(Object.fromEntries([...byModel].map(([model, a]) => [model, a.requests]))).toEqual({
          "m-a": records.filter((r) => r.model === "m-a").length,
          "m-b": records.filter((r) => r.model === "m-b").length,
        });
      }
      // A period from D on goes to its day's partition (a row moved there by its key).
      await sql`UPDATE log_rollups SET hour = ${new Date(TODAY + 2 * DAY + HOUR).toISOString()} WHERE ctid = (SELECT ctid FROM ${sql.table(first)} LIMIT 1)`.execute(store.db);
      expect(await rowsIn(store.db, dayName("log_rollups", TODAY + 2 * DAY))).toBe(1);

      // Retention drops the first partition whole once its last day is past.
      await deleteExpiredStep(store.db, TODAY + 2 * DAY + 2 * 60_000, 1_000);
      expect(await exists(store.db, first)).toBe(false);
      expect(await rowsIn(store.db, dayName("log_rollups", TODAY + 2 * DAY))).toBe(1);
    } finally {
      await store.close();
    }
  });

  it("are partitioned once when two gateways try at the same moment", async () => {
    database = await postgresTestUrl();
    const { db, dialect } = await migratedOnly(database);
    await createLogsRepository(db, dialect).insertBatch([logRecord(NOW - DAY, { workspaceId: scopeId("ws") })]);
    const rollupRows = await rowsIn(db, "log_rollups");
    try {
      expect(await Promise.all([partitionLogRollups(db), partitionLogRollups(db)])).toEqual([true, true]);
      expect(await logRollupsPartitioned(db)).toBe(true);
      expect(await rowsIn(db, "log_rollups")).toBe(rollupRows);
    } finally {
      await db.destroy();
    }
  });
});
