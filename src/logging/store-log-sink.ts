import type { LogsRepository } from "../store/logs-repository.ts";
import { toLogRecord } from "./log-record-builder.ts";
import type { LogSink } from "./log-writer.ts";

/** A log sink that builds the records and stores them through the store's own connection. */
export function storeLogSink(logs: Pick<LogsRepository, "insertBatch">): LogSink {
  return { insertBatch: (entries) => logs.insertBatch(entries.map(toLogRecord)) };
}
