import type { LogStore } from "../store/log-store.ts";
import { createClickHouseAnalyticsRepository } from "./clickhouse-analytics-repository.ts";
import { connectClickHouse } from "./clickhouse-connection.ts";
import { createClickHouseFeedbackRepository } from "./clickhouse-feedback-repository.ts";
import { createClickHouseExperimentOutcomes } from "./clickhouse-experiment-outcomes.ts";
import type { ConfigIdResolver } from "./clickhouse-log-filters.ts";
import { createClickHouseLogsRepository } from "./clickhouse-logs-repository.ts";
import { migrateClickHouse } from "./clickhouse-migrate.ts";
import { dropExpiredPartitionsStep } from "./clickhouse-retention.ts";
import { parseClickHouseUrl, type ClickHouseTarget } from "./clickhouse-url.ts";

const MIGRATION_TIMEOUT_MS = 6 * 3_600_000;

/** A log store on ClickHouse, with its connection to close. */
export interface ClickHouseLogStore extends LogStore {
  /** The server's release. */
  version: string;
  close(): Promise<void>;
}

export interface ClickHouseLogStoreOptions {
  /** How a config filter's slug becomes an id: configs live in the main store. Default: the value as an id. */
  resolveConfig?: ConfigIdResolver;
  /** Skip the migrations (a second connection of a process that ran them). */
  migrate?: boolean;
}

/**
 * Opens the ClickHouse log store `url` names (`http(s)://user:password@host:port/database`, or
 * the target parsed from it) and migrates it. Rejects on a malformed URL, an unreachable server
 * or a failed migration, with a message that never holds the password.
 */
export async function openClickHouseLogStore(url: string | ClickHouseTarget, options: ClickHouseLogStoreOptions = {}): Promise<ClickHouseLogStore> {
  const target = typeof url === "string" ? parseClickHouseUrl(url) : url;
  if (options.migrate !== false) {
    // A migration that rebuilds a rollup reads every stored log: minutes on a large store, so its
    // statements get hours where a query gets a minute.
    const migrating = await connectClickHouse(target, { requestTimeoutMs: MIGRATION_TIMEOUT_MS });
    try {
      await migrateClickHouse(migrating);
    } finally {
      await migrating.close();
    }
  }
  const connection = await connectClickHouse(target);
  const resolveConfig = options.resolveConfig ?? (async (_workspaceId, config) => config);
  return {
    version: connection.version,
    logs: createClickHouseLogsRepository(connection, resolveConfig),
    analytics: createClickHouseAnalyticsRepository(connection, resolveConfig),
    feedback: createClickHouseFeedbackRepository(connection),
    experimentOutcomes: createClickHouseExperimentOutcomes(connection),
    deleteExpiredStep: (cutoffMs) => dropExpiredPartitionsStep(connection, cutoffMs),
    close: () => connection.close(),
  };
}
