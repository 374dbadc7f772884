/**
 * Worker thread (the Bun and Deno entry points start it) that builds log records (parse,
 * assemble, price) and stores them through the store's logs repository on its own connection.
 * Embedded SQLite runs statements synchronously, so writing on the request thread would stall
 * every request while a batch is stored; here it stalls nobody. Protocol: worker-log-sink.ts.
 */
import { openLogsStore, type LogsStore } from "../store/open-logs-store.ts";
import { unpackLogEntry } from "./log-entry.ts";
import { buildLogRecord } from "./log-record-builder.ts";
import { figuresOf, packFigures } from "./record-figures.ts";
import type { LogWorkerReply, LogWorkerRequest } from "./worker-log-sink.ts";
import { fullCollection, startIdleCollector } from "../lib/idle-collector.ts";

interface WorkerScope {
  onmessage: ((event: MessageEvent<LogWorkerRequest>) => void) | null;
  postMessage(message: LogWorkerReply): void;
}
const scope = globalThis as unknown as WorkerScope;

let store: LogsStore | null = null;
// One message at a time, in order: a close never overtakes a write.
let queue: Promise<void> = Promise.resolve();

async function handle(message: LogWorkerRequest): Promise<void> {
  try {
    if (message.type === "open") store = await openLogsStore(message.url);
    if (!store) throw new Error("the log worker was not opened");
    if (message.type === "insert") {
      const built = message.entries.map((packed) => buildLogRecord(unpackLogEntry(packed)));
      await store.logs.insertBatch(built.map(({ record }) => record));
      // Tokens, cost and served model go back for the request thread's metrics and spans, when it has them.
      const figures = message.figures ? built.map(({ record, servedModel }) => packFigures(figuresOf(record, servedModel))) : undefined;
      return scope.postMessage({ id: message.id, ok: true, figures });
    }
    if (message.type === "ping") await store.logs.ping();
    if (message.type === "close") await store.close();
    scope.postMessage({ id: message.id, ok: true });
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    scope.postMessage({
      id: message.id,
      ok: false,
      error: error instanceof Error ? error.message : String(error),
      ...(error instanceof Error && { name: error.name }),
      ...(code !== undefined && code !== null && { code: String(code) }),
    });
  }
}

let messages = 0;
scope.onmessage = (event) => {
  messages += 1;
  queue = queue.then(() => handle(event.data));
};

// The worker is a heap of its own: after a burst of batches it gives their garbage back too.
const collect = fullCollection();
if (collect) startIdleCollector({ workDone: () => messages, collect, quietMs: 2_000 });
