import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOwnClickHouse, type OwnClickHouse } from "../../test/support/own-clickhouse.ts";
import { connectClickHouse, type ClickHouseConnection } from "./clickhouse-connection.ts";
import { migrateClickHouse } from "./clickhouse-migrate.ts";
import { CLICKHOUSE_MIGRATIONS } from "./clickhouse-migrations.ts";
import { parseClickHouseUrl } from "./clickhouse-url.ts";

let server: OwnClickHouse;
let connection: ClickHouseConnection;

beforeAll(async () => {
  server = await startOwnClickHouse();
  connection = await connectClickHouse(parseClickHouseUrl(await server.database("migrate_test")));
});
afterAll(async () => {
  await connection?.close();
  await server?.remove();
});

describe("ClickHouse log store migrations", () => {
  it("apply every version once, record it, and apply nothing on a second run", async () => {
    const versions = CLICKHOUSE_MIGRATIONS.map((migration) => migration.version);
    expect(await migrateClickHouse(connection)).toEqual(versions);
    expect(await migrateClickHouse(connection)).toEqual([]);
    const recorded = await connection.rows<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version");
    expect(recorded.map((row) => Number(row.version))).toEqual(versions);
    const tables = await connection.rows<{ name: string }>("SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name");
    expect(tables.map((row) => row.name)).toEqual(expect.arrayContaining(["feedback", "log_rollups_daily_users", "log_rollups_hourly", "logs"]));
  });

  it("apply a later version alone, leaving the applied ones", async () => {
    const later = { version: 9_999, name: "probe", statements: ["CREATE TABLE IF NOT EXISTS probe (x UInt8) ENGINE = MergeTree ORDER BY x"] };
    expect(await migrateClickHouse(connection, [...CLICKHOUSE_MIGRATIONS, later])).toEqual([9_999]);
    const [row] = await connection.rows<{ n: string }>("SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = 'probe'");
    expect(Number(row?.n)).toBe(1);
  });
});
