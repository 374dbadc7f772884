import { packLogEntry } from "./log-entry.ts";
import type { LogSink } from "./log-sink.ts";
import { unpackFigures, type RecordFigures } from "./record-figures.ts";

export type LogWorkerRequest =
  | { type: "open"; id: number; url: string }
  /** Entries packed by `packLogEntry`. */
  | { type: "insert"; id: number; entries: unknown[][]; figures: boolean }
  | { type: "ping"; id: number }
  | { type: "close"; id: number };

/** An insert's reply carries each record's figures (`packFigures`), in the batch's order. */
export type LogWorkerReply = { id: number; ok: true; figures?: unknown[][] } | { id: number; ok: false; error: string; name?: string; code?: string };

/** The part of the web `Worker` the sink uses (Bun and Deno have it built in). */
export interface WorkerLike {
  postMessage(message: LogWorkerRequest): void;
  onmessage: ((event: MessageEvent<LogWorkerReply>) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
  terminate(): void;
}

export interface WorkerLogSink extends LogSink {
  /** Closes the worker's store connection and stops the worker. */
  close(): Promise<void>;
}

/**
 * A log sink whose batches are built into records and stored by `log-store-worker.ts` on
 * another thread, through its own connection to the same database. `insertBatch` resolves
 * once the batch is stored.
 */
export async function openWorkerLogSink(worker: WorkerLike, databaseUrl: string): Promise<WorkerLogSink> {
  let nextId = 0;
  const waiting = new Map<number, { resolve: (figures: unknown[][] | undefined) => void; reject: (error: Error) => void }>();
  worker.onmessage = (event) => {
    const reply = event.data;
    const pending = waiting.get(reply.id);
    if (!pending) return;
    waiting.delete(reply.id);
    if (reply.ok) pending.resolve(reply.figures);
    else pending.reject(workerError(reply));
  };
  // A crashed worker answers nothing: fail what waits (the writer reports the records lost) and
  // everything sent later, so neither requests nor shutdown hang on it.
  let crashed: Error | null = null;
  worker.onerror = (event) => {
    crashed = new Error(`the log worker failed: ${event.message}`);
    for (const pending of waiting.values()) pending.reject(crashed);
    waiting.clear();
  };
  const send = (message: Omit<LogWorkerRequest, "id"> & Partial<LogWorkerRequest>): Promise<unknown[][] | undefined> =>
    new Promise((resolve, reject) => {
      if (crashed) return reject(crashed);
      const id = ++nextId;
      waiting.set(id, { resolve, reject });
      worker.postMessage({ ...message, id } as LogWorkerRequest);
    });

  await send({ type: "open", url: databaseUrl });
  return {
    async insertBatch(entries, wantsFigures = false): Promise<RecordFigures[] | undefined> {
      if (entries.length === 0) return [];
      const figures = await send({ type: "insert", entries: entries.map(packLogEntry), figures: wantsFigures });
      return figures?.map(unpackFigures);
    },
    async ping() {
      await send({ type: "ping" });
    },
    async close() {
      try {
        await send({ type: "close" });
      } finally {
        worker.terminate();
      }
    },
  };
}

/**
 * The store's error as the worker reported it, with its name and code: the writer tells an
 * outage (a lock, a lost connection) from a record the store refuses (a value out of range) by them.
 */
function workerError(reply: { error: string; name?: string; code?: string }): Error {
  const error = reply.name === "TypeError" ? new TypeError(reply.error) : reply.name === "RangeError" ? new RangeError(reply.error) : new Error(reply.error);
  if (reply.code !== undefined) Object.assign(error, { code: reply.code });
  return error;
}
