/**
 * Worker thread (Bun only: the Bun entry point starts it) that builds log records (parse,
 * assemble, price) and writes them to the embedded SQLite file with its own connection.
 * SQLite runs statements synchronously, so writing on the request thread would stall every
 * request while a batch is stored; here it stalls nobody. Protocol: worker-log-sink.ts.
 */
import { openBunSqliteLogInserter, type LogInserter } from "../store/dialects/bun-sqlite-log-inserter.ts";
import { unpackLogEntry } from "./log-entry.ts";
import { toLogRecord } from "./log-record-builder.ts";
import type { LogWorkerReply, LogWorkerRequest } from "./worker-log-sink.ts";

interface WorkerScope {
  onmessage: ((event: MessageEvent<LogWorkerRequest>) => void) | null;
  postMessage(message: LogWorkerReply): void;
}
const scope = globalThis as unknown as WorkerScope;

let inserter: LogInserter | null = null;
// One message at a time, in order: a close never overtakes a write.
let queue: Promise<void> = Promise.resolve();

async function handle(message: LogWorkerRequest): Promise<void> {
  try {
    if (message.type === "open") inserter = openBunSqliteLogInserter(message.url);
    if (!inserter) throw new Error("the log worker was not opened");
    if (message.type === "insert") inserter.insertBatch(message.entries.map((packed) => toLogRecord(unpackLogEntry(packed))));
    if (message.type === "close") inserter.close();
    scope.postMessage({ id: message.id, ok: true });
  } catch (error) {
    scope.postMessage({ id: message.id, ok: false, error: error instanceof Error ? error.message : String(error) });
  }
}

scope.onmessage = (event) => {
  queue = queue.then(() => handle(event.data));
};
