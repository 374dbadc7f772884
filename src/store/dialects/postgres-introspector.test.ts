import { afterEach, describe, expect, it } from "vitest";
import { Client } from "pg";
import { randomBytes } from "node:crypto";
import { postgresTestUrl, type TestDatabase } from "../../../test/support/databases.ts";
import { openStore, type Store } from "../open-store.ts";
import { testPostgresUrl } from "../../../test/support/services.ts";

const ADMIN_URL = testPostgresUrl();
const databases: TestDatabase[] = [];
const stores: Store[] = [];

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const database of databases.splice(0)) await database.cleanup();
});

describe("the PostgreSQL store's view of its database", () => {
  // Reading another tenant's schemas by name fails when one is dropped meanwhile, and with it
  // the store's migration: the store looks at its own schema only.
  it("introspects its own schema only, never another tenant's", async () => {
    const admin = new Client({ connectionString: ADMIN_URL });
    await admin.connect();
    const other = `tenant_${randomBytes(4).toString("hex")}`;
    try {
      await admin.query(`create schema "${other}"; create table "${other}".elsewhere (id serial primary key)`);
      const database = await postgresTestUrl();
      databases.push(database);
      const store = await openStore(database.url);
      stores.push(store);

      const tables = await store.db.introspection.getTables({ withInternalKyselyTables: true });
      expect(tables.map((table) => table.name)).not.toContain("elsewhere");
      expect(new Set(tables.map((table) => table.schema)).size).toBe(1);
      expect(tables.map((table) => table.name)).toContain("kysely_migration");
      expect((await store.db.introspection.getTables()).map((table) => table.name)).not.toContain("kysely_migration");
      const id = tables.find((table) => table.name === "logs")?.columns.find((column) => column.name === "id");
      expect(id).toMatchObject({ isNullable: false, dataType: "text" });
    } finally {
      await admin.query(`drop schema if exists "${other}" cascade`);
      await admin.end();
    }
  });
});
