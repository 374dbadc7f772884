import type { GatewayConfig } from "../../src/config.ts";
import { postgresTestUrl } from "./databases.ts";
import { startOwnClickHouse } from "./own-clickhouse.ts";

/** What a gateway test needs to run on one log store: config overrides and how to clean up. */
export interface LogStoreSetup {
  overrides: Partial<GatewayConfig>;
  cleanup(): Promise<void>;
}

/**
 * The log stores the logs, analytics and export suites run on, end to end: the embedded store,
 * PostgreSQL, and ClickHouse (a server of the suite's own, with the control plane on the embedded store).
 */
export const LOG_STORES: ReadonlyArray<{ store: string; setup: () => Promise<LogStoreSetup> }> = [
  { store: "libSQL", setup: async () => ({ overrides: {}, cleanup: async () => {} }) },
  {
    store: "PostgreSQL",
    setup: async () => {
      const database = await postgresTestUrl();
      return { overrides: { GATEWAY_DATABASE_URL: database.url }, cleanup: () => database.cleanup() };
    },
  },
  {
    store: "ClickHouse",
    setup: async () => {
      const server = await startOwnClickHouse();
      return { overrides: { GATEWAY_LOG_STORE_URL: await server.database("gateway_logs") }, cleanup: () => server.remove() };
    },
  },
];
