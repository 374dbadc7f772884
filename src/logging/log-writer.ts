import type { LogEntry } from "./log-entry.ts";
import type { RecordFigures } from "./record-figures.ts";

/** Where batches go: the log-store worker, or the store itself (`storeLogSink`). */
export interface LogSink {
  /** Resolves once stored, with each record's figures in order when the sink built them. */
  insertBatch(entries: LogEntry[]): Promise<readonly RecordFigures[] | undefined | void>;
}

/**
 * Told of every batch once it is stored (or lost), on the writer's thread: `figures` holds each
 * entry's tokens, cost and served model, or is null when the batch was lost. Must not throw.
 */
export type BatchObserver = (entries: readonly LogEntry[], figures: readonly RecordFigures[] | null) => void;

export interface LogWriterOptions {
  flushIntervalMs: number;
  batchSize: number;
  /** Past this many waiting records the oldest are dropped (and counted) rather than exhausting memory. */
  maxPending?: number;
  onError?: (error: unknown, lost: number) => void;
  /** Telemetry (metrics, spans), fed from the finished records off the request path. */
  observer?: BatchObserver;
}

/**
 * Asynchronous batch writer: `enqueue` is O(1) and never waits for the store. Records are
 * written in batches every `flushIntervalMs` or as soon as `batchSize` are waiting.
 * `close()` writes everything still pending.
 */
export class LogWriter {
  private pending: LogEntry[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private closed = false;
  private dropped = 0;
  private retried = 0;
  private lost = 0;
  private readonly maxPending: number;

  constructor(
    private readonly sink: LogSink,
    private readonly options: LogWriterOptions,
  ) {
    this.maxPending = options.maxPending ?? 100_000;
  }

  /** Queues an entry. Never throws, never blocks. */
  enqueue(entry: LogEntry): void {
    if (this.pending.length >= this.maxPending) {
      this.pending.shift();
      this.dropped += 1;
    }
    this.pending.push(entry);
    if (this.pending.length >= this.options.batchSize) this.scheduleFlush(0);
    else this.scheduleFlush(this.options.flushIntervalMs);
  }

  /** Records dropped because the store could not keep up. */
  get droppedCount(): number {
    return this.dropped;
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  /** Records whose first write failed and were written again. */
  get retriedCount(): number {
    return this.retried;
  }

  /** Records lost because their batch failed twice. */
  get lostCount(): number {
    return this.lost;
  }

  /** Writes every record queued so far; resolves when they are stored (or reported lost). */
  flush(): Promise<void> {
    this.clearTimer();
    this.flushing = this.flushing.then(() => this.writeAll());
    return this.flushing;
  }

  /** Flushes and stops the timer. Records enqueued later are still written by a further `flush`. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private scheduleFlush(delayMs: number): void {
    if (this.closed) return;
    if (this.timer && delayMs > 0) return;
    this.clearTimer();
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, delayMs);
    // A pending flush must not keep a process alive by itself; shutdown flushes explicitly.
    (this.timer as { unref?: () => void }).unref?.();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async writeAll(): Promise<void> {
    while (this.pending.length > 0) {
      await this.writeWithRetry(this.pending.splice(0, this.options.batchSize));
    }
  }

  private async writeWithRetry(entries: LogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    let figures: readonly RecordFigures[] | null = null;
    try {
      figures = (await this.sink.insertBatch(entries)) ?? null;
    } catch {
      this.retried += entries.length;
      try {
        await new Promise((resolve) => setTimeout(resolve, 100));
        figures = (await this.sink.insertBatch(entries)) ?? null;
      } catch (error) {
        this.lost += entries.length;
        this.options.onError?.(error, entries.length);
      }
    }
    this.observe(entries, figures);
  }

  private observe(entries: readonly LogEntry[], figures: readonly RecordFigures[] | null): void {
    const { observer } = this.options;
    if (!observer) return;
    try {
      observer(entries, figures !== null && figures.length === entries.length ? figures : null);
    } catch (error) {
      // Telemetry must never cost a log record; a failing observer is reported, not retried.
      this.options.onError?.(error, 0);
    }
  }
}
