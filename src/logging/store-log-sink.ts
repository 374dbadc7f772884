import { setImmediate as nextTurn } from "node:timers/promises";
import type { LogsRepository } from "../store/logs-repository.ts";
import { buildLogRecord } from "./log-record-builder.ts";
import type { LogSink } from "./log-writer.ts";
import { figuresOf } from "./record-figures.ts";

/**
 * Records built between two turns of the event loop. This sink runs on the request thread, and a
 * batch grows to thousands under load (`GATEWAY_LOG_MAX_BATCH_SIZE`): built in one go, it would
 * hold every request for tens of milliseconds.
 */
const BUILT_PER_TURN = 200;

/** A log sink that builds the records and stores them through the store's own connection. */
export function storeLogSink(logs: Pick<LogsRepository, "insertBatch" | "ping">): LogSink {
  return {
    async insertBatch(entries, figures) {
      const built: Array<ReturnType<typeof buildLogRecord>> = [];
      for (let start = 0; start < entries.length; start += BUILT_PER_TURN) {
        if (start > 0) await nextTurn();
        for (let i = start; i < Math.min(entries.length, start + BUILT_PER_TURN); i += 1) built.push(buildLogRecord(entries[i]!));
      }
      await logs.insertBatch(built.map(({ record }) => record));
      return figures ? built.map(({ record, servedModel }) => figuresOf(record, servedModel)) : undefined;
    },
    ping: () => logs.ping(),
  };
}
