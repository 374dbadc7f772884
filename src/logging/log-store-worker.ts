/**
 * Worker thread that writes log batches with its own store connection. Embedded libSQL runs
 * its statements synchronously, so writing on the request thread would stall every request
 * while a batch is stored; here it stalls nobody. Protocol: see worker-log-sink.ts.
 */
import { openStore, type Store } from "../store/open-store.ts";
import type { LogWorkerReply, LogWorkerRequest } from "./worker-log-sink.ts";

interface WorkerScope {
  onmessage: ((event: MessageEvent<LogWorkerRequest>) => void) | null;
  postMessage(message: LogWorkerReply): void;
}
const scope = globalThis as unknown as WorkerScope;

let store: Promise<Store> | null = null;
// One message at a time, in order: a close never overtakes a write.
let queue: Promise<void> = Promise.resolve();

async function handle(message: LogWorkerRequest): Promise<void> {
  try {
    if (message.type === "open") store = openStore(message.url);
    if (!store) throw new Error("the log worker was not opened");
    const opened = await store;
    if (message.type === "insert") await opened.logs.insertBatch(message.records);
    if (message.type === "close") await opened.close();
    scope.postMessage({ id: message.id, ok: true });
  } catch (error) {
    scope.postMessage({ id: message.id, ok: false, error: error instanceof Error ? error.message : String(error) });
  }
}

scope.onmessage = (event) => {
  queue = queue.then(() => handle(event.data));
};
