import { parseClickHouseUrl, type ClickHouseTarget } from "../../src/clickhouse/clickhouse-url.ts";
import { startEmbeddedClickHouse } from "./embedded-clickhouse.ts";
import { startOwnClickHouse } from "./own-clickhouse.ts";

/** A ClickHouse engine a suite runs on, with a fresh database per target. */
export interface ClickHouseEngine {
  target(database: string): Promise<ClickHouseTarget>;
  remove(): Promise<void>;
}

/**
 * The engines the log store's ClickHouse suites run on: Debian's server (18.16) over HTTP, as the
 * gateway talks to it, and the current release in process through chdb, for the SQL.
 */
export const CLICKHOUSE_ENGINES: ReadonlyArray<{ engine: string; start: () => Promise<ClickHouseEngine> }> = [
  {
    engine: "ClickHouse 18.16 over HTTP",
    start: async () => {
      const server = await startOwnClickHouse();
      return { target: async (database) => parseClickHouseUrl(await server.database(database)), remove: () => server.remove() };
    },
  },
  { engine: "current ClickHouse in process (chdb)", start: startEmbeddedClickHouse },
];
