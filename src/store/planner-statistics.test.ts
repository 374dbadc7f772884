import { Kysely, Migrator, sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { postgresTestUrl, sqliteTestDatabase, type TestDatabase } from "../../test/support/databases.ts";
import { pickDialect } from "./dialects/pick-dialect.ts";
import { migrations, staticMigrationProvider } from "./migrations/index.ts";
import type { Database } from "./schema.ts";
import { openStore } from "./open-store.ts";
import { inTrace, matchesLogFilters } from "./logs-repository.ts";
import { logRecord, newConfig } from "./store-test-fixtures.ts";

const JAN_1 = Date.parse("2026-01-01T00:00:00.000Z");

describe("planner statistics on the embedded store", () => {
  let database: TestDatabase;
  let configDatabase: TestDatabase;

  afterAll(async () => {
    await database?.cleanup();
    await configDatabase?.cleanup();
  });

  it("lets a trace filter use the trace index once the store has been reopened with rows", async () => {
    database = await sqliteTestDatabase();
    const first = await openStore(database.url);
    // Most requests are their own trace (trace id = log id); every tenth belongs to one of
    // twenty shared traces, ten requests each.
    const records = Array.from({ length: 2_000 }, (_, i) => {
      const record = logRecord(JAN_1 + i, { workspaceId: "ws-big" });
      return { ...record, traceId: i % 10 === 0 ? `trace-${(i / 10) % 20}` : record.id };
    });
    await first.logs.insertBatch(records);
    await first.close();

    const store = await openStore(database.url);
    // The listing's own trace condition, as the repository builds it.
    const listing = store.db
      .selectFrom("logs")
      .select("id")
      .where("workspace_id", "=", "ws-big")
      .where((eb) => inTrace(eb, "trace-3"))
      .orderBy("id", "desc")
      .compile();
    const plan = await store.db.executeQuery<{ detail: string }>({ ...listing, sql: `EXPLAIN QUERY PLAN ${listing.sql}` });
    expect(plan.rows.map((row) => row.detail).join("\n")).toContain("logs_workspace_trace_idx");

    const { records: traced } = await store.logs.list({ workspaceId: "ws-big", traceId: "trace-3", limit: 500 });
    expect(traced).toHaveLength(10);
    const own = records[1]!;
    const { records: alone } = await store.logs.list({ workspaceId: "ws-big", traceId: own.id, limit: 500 });
    expect(alone.map((record) => record.id)).toEqual([own.id]);
    await store.close();
  });

  it("lets a config filter, by slug, use the partial config index", async () => {
    configDatabase = await sqliteTestDatabase();
    const first = await openStore(configDatabase.url);
    const config = newConfig({ workspaceId: "ws-big" });
    await first.configs.create(config);
    // Most requests run without a stored config; one in a hundred ran this one (at one in ten,
    // SQLite rightly judges scanning the workspace cheaper than the index).
    const records = Array.from({ length: 2_000 }, (_, i) =>
      logRecord(JAN_1 + i, { workspaceId: "ws-big", configId: i % 100 === 0 ? config.id : null }),
    );
    await first.logs.insertBatch(records);
    await first.close();

    const store = await openStore(configDatabase.url);
    const listing = store.db
      .selectFrom("logs")
      .select("id")
      .where((eb) => matchesLogFilters(eb, { workspaceId: "ws-big", config: config.slug }))
      .orderBy("id", "desc")
      .compile();
    const plan = await store.db.executeQuery<{ detail: string }>({ ...listing, sql: `EXPLAIN QUERY PLAN ${listing.sql}` });
    expect(plan.rows.map((row) => row.detail).join("\n")).toContain("logs_workspace_config_idx");
    const { records: served } = await store.logs.list({ workspaceId: "ws-big", config: config.slug, limit: 500 });
    expect(served).toHaveLength(20);
    await store.close();
  });
});

describe("planner statistics on PostgreSQL", () => {
  let database: TestDatabase;

  afterAll(async () => {
    await database?.cleanup();
  });

  it("are refreshed when opening the store ran a migration, before autovacuum would", async () => {
    database = await postgresTestUrl();
    const dialect = await pickDialect(database.url);
    const db = new Kysely<Database>({ dialect: dialect.dialect });
    const names = Object.keys(migrations);
    const schema = await dialect.migrationSchema(db);
    await new Migrator({ db, provider: staticMigrationProvider, migrationTableSchema: schema }).migrateTo(names.at(-2)!);
    await sql`ALTER TABLE key_spend SET (autovacuum_enabled = false)`.execute(db);
    await sql`INSERT INTO key_spend (key_kind, key_id, period_start, spent_usd, updated_at) SELECT 'api_key', 'key-' || i, 'none', 1, 'x' FROM generate_series(1, 1000) AS i`.execute(db);
    const tuples = sql<{ reltuples: number }>`SELECT reltuples FROM pg_class WHERE oid = 'key_spend'::regclass`;
    // Never analysed: PostgreSQL does not know the table's size.
    expect((await tuples.execute(db)).rows[0]?.reltuples).toBe(-1);
    await db.destroy();

    const store = await openStore(database.url);
    expect((await tuples.execute(store.db)).rows[0]?.reltuples).toBe(1000);
    await store.close();
  });
});
