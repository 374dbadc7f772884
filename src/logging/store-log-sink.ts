import type { LogsRepository } from "../store/logs-repository.ts";
import { buildLogRecord } from "./log-record-builder.ts";
import type { LogSink } from "./log-writer.ts";
import { figuresOf } from "./record-figures.ts";

/** A log sink that builds the records and stores them through the store's own connection. */
export function storeLogSink(logs: Pick<LogsRepository, "insertBatch" | "ping">): LogSink {
  return {
    async insertBatch(entries, figures) {
      const built = entries.map(buildLogRecord);
      await logs.insertBatch(built.map(({ record }) => record));
      return figures ? built.map(({ record, servedModel }) => figuresOf(record, servedModel)) : undefined;
    },
    ping: () => logs.ping(),
  };
}
