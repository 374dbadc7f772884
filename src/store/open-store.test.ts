import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { createClient } from "@libsql/client";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { postgresTestUrl, removeSqliteTestDatabase, sqliteTestUrl, TEST_DATABASES, type TestDatabase } from "../../test/support/databases.ts";
import { filePath, PAGE_SIZE_BYTES } from "./dialects/sqlite-file.ts";
import { openStore, type Store } from "./open-store.ts";
import { apiKeyRecord, logRecord, scopeId } from "./store-test-fixtures.ts";

const opened: Store[] = [];
const databases: TestDatabase[] = [];

async function open(url: string): Promise<Store> {
  const store = await openStore(url);
  opened.push(store);
  return store;
}

async function fresh(create: () => Promise<TestDatabase>): Promise<TestDatabase> {
  const database = await create();
  databases.push(database);
  return database;
}

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  for (const database of databases.splice(0)) await database.cleanup();
});

describe.each(TEST_DATABASES)("openStore on $name", ({ name, create }) => {
  it("migrates once: reopening keeps the data and records each migration a single time", async () => {
    const { url } = await fresh(create);
    const first = await open(url);
    expect(first.dialect).toBe(name === "postgres" ? "postgres" : "sqlite");
    const key = apiKeyRecord();
    await first.apiKeys.insert(key);
    await first.close();
    opened.splice(opened.indexOf(first), 1);

    const second = await open(url);
    expect(await second.apiKeys.findByHash(key.keyHash)).toEqual(key);
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(second.db);
    expect(rows.map((row) => row.name).sort()).toEqual(["0001_initial", "0002_control_plane", "0003_partial_log_indexes", "0004_untraced_log_index", "0005_log_body_sizes", "0006_structural_sealed_secrets", "0007_log_attempts", "0008_log_config_and_feedback", "0009_log_rollups", "0010_spend_limits", "0011_log_cache", "0012_virtual_key_fields", "0013_stored_responses", "0014_log_cost_note", "0015_audit_events", "0016_api_key_expiry_rotation", "0020_mcp_servers", "0021_semantic_cache", "0022_partitioned_logs", "0023_log_rollup_progress", "0024_log_rollup_days", "0025_analytics_dimensions", "0026_log_rollup_ranking_index", "0027_log_write_indexes", "0028_log_rollup_user_hours", "0029_log_metadata_pairs", "0030_log_workspace_primary_key", "0031_log_created_index_dropped", "0032_mcp_gateway", "0040_budgets", "0041_webhooks", "0042_run_limits", "0043_reconciliation", "0044_prompt_labels", "0045_experiments", "0046_unified_batches", "0047_log_web_searches"]);
  });

  it.each([
    ["end_user", "logs_workspace_user_idx"],
    ["prompt_id", "logs_workspace_prompt_idx"],
    ["virtual_key_id", "logs_workspace_virtual_key_idx"],
    ["experiment_id", "logs_workspace_experiment_idx"],
  ] as const)("can answer a %s filter from its partial index", async (column, index) => {
    const store = await open((await fresh(create)).url);
    const plan = await store.db.transaction().execute(async (trx) => {
      // A near-empty table would otherwise be scanned whatever the indexes.
      if (name === "postgres") await sql`set local enable_seqscan = off`.execute(trx);
      const explain = name === "postgres" ? sql`explain` : sql`explain query plan`;
      const query = sql`select id from logs where workspace_id = ${"ws"} and ${sql.ref(column)} = ${"x"}`;
      const { rows } = await sql<Record<string, unknown>>`${explain} ${query}`.execute(trx);
      return JSON.stringify(rows);
    });
    // On PostgreSQL the table is partitioned: the plan names the index's copy on each partition.
    const names =
      name === "postgres"
        ? (await sql<{ name: string }>`select inhrelid::regclass::text as name from pg_inherits where inhparent = ${index}::regclass`.execute(store.db)).rows.map((row) => row.name)
        : [index];
    expect(names.length).toBeGreaterThan(0);
    expect(names.some((partitionIndex) => plan.includes(partitionIndex))).toBe(true);
  });

  it("lets other writes proceed while a large batch transaction runs", async () => {
    const store = await open((await fresh(create)).url);
    const workspaceId = scopeId("ws");
    const records = Array.from({ length: 1000 }, (_, i) => logRecord(Date.UTC(2026, 0, 1) + i, { workspaceId }));
    const keys = Array.from({ length: 20 }, () => apiKeyRecord());
    await Promise.all([
      store.logs.insertBatch(records),
      ...keys.map((key) => store.apiKeys.insert(key)),
      store.logs.list({ workspaceId, limit: 5 }),
    ]);
    expect(await store.logs.count(workspaceId)).toBe(1000);
    expect(await store.apiKeys.countActive()).toBe(20);
  });
});

describe("openStore URLs", () => {
  it("keeps a :memory: database across transactions", async () => {
    const store = await open(":memory:");
    const record = logRecord(Date.UTC(2026, 0, 1));
    await store.logs.insertBatch([record]);
    await store.apiKeys.insert(apiKeyRecord());
    expect(await store.logs.get(record.id, record.workspaceId)).toEqual(record);
    expect(await store.apiKeys.countActive()).toBe(1);
  });

  it("creates the folder of a file: URL, in the file:/// form too, with WAL on and 16 KiB pages", async () => {
    const url = sqliteTestUrl();
    databases.push({ url, cleanup: () => removeSqliteTestDatabase(url) });
    const store = await open(url.replace(/^file:/, "file://"));
    const { rows } = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(store.db);
    expect(rows[0]?.journal_mode).toBe("wal");
    const pages = await sql<{ page_size: number }>`pragma page_size`.execute(store.db);
    expect(pages.rows[0]?.page_size).toBe(PAGE_SIZE_BYTES);
  });

  it("opens a file made with another page size as it is", async () => {
    const url = sqliteTestUrl();
    databases.push({ url, cleanup: () => removeSqliteTestDatabase(url) });
    await mkdir(dirname(filePath(url)), { recursive: true });
    const older = createClient({ url });
    await older.execute("PRAGMA page_size=4096");
    await older.execute("CREATE TABLE made_before (id integer)");
    older.close();
    const store = await open(url);
    const pages = await sql<{ page_size: number }>`pragma page_size`.execute(store.db);
    expect(pages.rows[0]?.page_size).toBe(4096);
    await store.apiKeys.insert(apiKeyRecord());
    expect(await store.apiKeys.countActive()).toBe(1);
  });

  it("rejects a URL it cannot open, without echoing credentials", async () => {
    await expect(openStore("mysql://user:secret@localhost/db")).rejects.toThrow(/unsupported store URL "mysql:/);
    await expect(openStore("mysql://user:secret@localhost/db")).rejects.not.toThrow(/secret/);
  });

  it("gives each PostgreSQL test schema its own tables", async () => {
    const a = await open((await fresh(postgresTestUrl)).url);
    const b = await open((await fresh(postgresTestUrl)).url);
    await a.apiKeys.insert(apiKeyRecord());
    expect(await a.apiKeys.countActive()).toBe(1);
    expect(await b.apiKeys.countActive()).toBe(0);
    const { rows } = await sql<{ table_name: string }>`
      select relname as table_name from pg_class
      where relnamespace = current_schema()::regnamespace and relkind in ('r', 'p') and not relispartition order by relname`.execute(b.db);
    expect(rows.map((row) => row.table_name)).toEqual([
      "analytics_dimensions", "api_keys", "audit_events", "budgets", "config_versions", "configs", "experiments", "feedback", "gateway_batch_lines", "gateway_batches", "gateway_files", "guardrails", "key_spend", "kysely_migration", "kysely_migration_lock",
      "log_metadata", "log_rollup_progress", "log_rollups", "logs", "mcp_servers", "prompt_labels", "prompt_versions", "prompts", "reconciliation_rows", "reconciliation_settings", "semantic_cache_entries", "stored_responses", "virtual_keys", "webhook_deliveries", "webhooks",
    ]);
    const schema = await sql<{ schema: string }>`select current_schema() as schema`.execute(b.db);
    expect(schema.rows[0]?.schema).toMatch(/^store_test_[0-9a-f]{12}$/);
  });
});
