import { Kysely } from "kysely";
import { pickDialect } from "./dialects/pick-dialect.ts";
import { createLogsRepository, type LogsRepository } from "./logs-repository.ts";
import type { Database } from "./schema.ts";

/** The logs repository alone, for a writer on another thread. */
export interface LogsStore {
  logs: LogsRepository;
  close(): Promise<void>;
}

/**
 * Opens the logs repository over a store that `openStore` has already opened and migrated
 * elsewhere in the process (the log worker's own connection): same dialect, no migration, no
 * planner statistics. Rejects as `openStore` does on an unsupported URL.
 */
export async function openLogsStore(url: string): Promise<LogsStore> {
  const dialect = await pickDialect(url);
  const db = new Kysely<Database>({ dialect: dialect.dialect, plugins: dialect.plugins });
  return { logs: createLogsRepository(db, dialect), close: () => db.destroy() };
}
