/** What the log writer (`log-writer.ts`) is given and tells: where batches go, its options, the store's events. */
import type { LogEntry } from "./log-entry.ts";
import type { LogSpool } from "./log-spool.ts";
import type { RecordFigures } from "./record-figures.ts";

/** Where batches go: the log-store worker, or the store itself (`storeLogSink`). */
export interface LogSink {
  /**
   * Resolves once stored; with `figures`, with each record's figures in order (telemetry reads
   * them). Storing a record twice keeps one.
   */
  insertBatch(entries: LogEntry[], figures?: boolean): Promise<readonly RecordFigures[] | undefined | void>;
  /** Resolves when the store answers at all: tells a store that is down from one that refuses a record. */
  ping?(): Promise<void>;
}

/**
 * Told of every batch once it is stored (or lost), on the writer's thread: `figures` holds each
 * entry's tokens, cost and served model, or is null when the batch was lost. Must not throw.
 */
export type BatchObserver = (entries: readonly LogEntry[], figures: readonly RecordFigures[] | null) => void;

/** What the writer tells the gateway's own log about the store. */
export type StoreEvent =
  | { kind: "down"; reason: string; spool: string | null }
  | { kind: "back"; replayed: number }
  | { kind: "behind"; waiting: number; spool: string }
  | { kind: "rejected"; count: number; reason: string }
  | { kind: "spool_failed"; reason: string };

export interface LogWriterOptions {
  flushIntervalMs: number;
  /** Records waiting that start a write at once, without waiting out `flushIntervalMs`. */
  batchSize: number;
  /**
   * The most records one write takes (default `batchSize`). Records that arrive while a write is
   * under way wait for the next; a batch's worth or more go at once, all of them up to this:
   * under load, batches grow until one write carries what arrived during the last, and a store
   * that writes big batches faster per record (COPY, column stores) keeps pace.
   */
  maxBatchSize?: number;
  /**
   * Past this many waiting records (default 100,000) the oldest go to the spool, or where there is
   * none (or it is full) are dropped, a hundredth of it at a time and counted, rather than
   * exhausting memory.
   */
  maxPending?: number;
  /** Records that could be neither stored nor spooled, at shutdown. */
  onError?: (error: unknown, lost: number) => void;
  /** The store going down and coming back, records it refused, a spool that failed. */
  onStoreEvent?: (event: StoreEvent) => void;
  /** Telemetry (metrics, spans), fed from the finished records off the request path. */
  observer?: BatchObserver;
  /** Told of every batch once it is in the store (not of one lost or set aside): what reads the store next (experiment guards). Must not throw. */
  onStored?: (entries: readonly LogEntry[]) => void;
  /**
   * Where batches wait while the store is down, and a full queue's oldest records while the store
   * is slower than they arrive; without one they wait in memory (bounded by `maxPending`).
   */
  spool?: LogSpool | null;
  /** Longest wait between tries while the store is down; default 5 s. */
  maxRetryDelayMs?: number;
}
