import { isStoreUnavailable, refusesRecord } from "../store/store-unavailable.ts";
import type { LogEntry } from "./log-entry.ts";
import type { LogSpool } from "./log-spool.ts";
import type { RecordFigures } from "./record-figures.ts";
import type { LogSink, LogWriterOptions } from "./log-sink.ts";

const FIRST_RETRY_DELAY_MS = 100;

/**
 * Asynchronous batch writer: `enqueue` is O(1) and never waits for the store. Records are
 * written in batches every `flushIntervalMs` or as soon as `batchSize` are waiting; one write at
 * a time, each taking everything waiting up to `maxBatchSize`.
 *
 * When the store is down, batches go to the spool (an append-only file) in order, and are
 * replayed oldest first once the store answers again; new records queue behind them, so order
 * holds. When it is up but slower than records arrive, the oldest of a full queue go to the
 * spool the same way. A record the store refuses while it stores others is set aside in the spool's
 * `rejected.jsonl`, so one bad record never blocks the rest. `close()` stores, or spools,
 * everything pending.
 */
export class LogWriter {
  private pending: LogEntry[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private closed = false;
  private dropped = 0;
  private retried = 0;
  private lost = 0;
  private rejected = 0;
  private spooled = 0;
  /** No store attempt before this instant (the store is down); 0 when it is up. */
  private downUntil = 0;
  private retryDelayMs = FIRST_RETRY_DELAY_MS;
  private replayedSinceDown = 0;
  private spoolBroken = false;
  /** Records taken from a full queue for the spool and not yet written there; their appends, in order. */
  private overflowing = 0;
  private overflowWrites: Promise<void> = Promise.resolve();
  /** True from a full queue's first records spooled until the writer has caught up. */
  private behind = false;
  private readonly maxPending: number;
  private readonly maxBatchSize: number;
  private readonly maxRetryDelayMs: number;
  private readonly spool: LogSpool | null;
  /** Only telemetry reads the records' figures: without it the sink need not build and send them. */
  private readonly wantsFigures: boolean;

  constructor(
    private readonly sink: LogSink,
    private readonly options: LogWriterOptions,
  ) {
    this.maxPending = options.maxPending ?? 100_000;
    this.maxBatchSize = Math.max(options.batchSize, options.maxBatchSize ?? options.batchSize);
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 5_000;
    this.spool = options.spool ?? null;
    this.wantsFigures = options.observer !== undefined;
    // Batches an earlier process spooled are replayed from the start.
    if (this.spool && !this.spool.isEmpty) this.scheduleFlush(0);
  }

  /** Queues an entry. Never throws, never blocks. */
  enqueue(entry: LogEntry): void {
    if (this.pending.length >= this.maxPending) this.makeRoom();
    this.pending.push(entry);
    if (this.pending.length >= this.options.batchSize) this.scheduleFlush(0);
    else this.scheduleFlush(this.options.flushIntervalMs);
  }

  /** Records dropped from a full queue because neither the store nor the spool could take them. */
  get droppedCount(): number {
    return this.dropped;
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  /** Records stored after a first write failed (held in memory), or replayed from the spool. */
  get retriedCount(): number {
    return this.retried;
  }

  /** Records lost: the store was down at shutdown and there was no spool to keep them. */
  get lostCount(): number {
    return this.lost;
  }

  /** Records the store refused while it stored others (kept in `rejected.jsonl`). */
  get rejectedCount(): number {
    return this.rejected;
  }

  /** Records written to the spool because the store was down or behind. */
  get spooledCount(): number {
    return this.spooled;
  }

  /** True while the store is considered down. */
  get storeDown(): boolean {
    return this.downUntil > 0;
  }

  /** Writes every record queued so far; resolves when they are stored, spooled (or reported lost). */
  flush(): Promise<void> {
    return this.write(true);
  }

  /**
   * Starts a write after the ones under way. `everything`: until nothing waits; otherwise (the
   * timer's or a full batch's write) until fewer than a batch wait, which then wait for the timer
   * or a full batch: under load a write takes full batches rather than whatever came during
   * the last one (a store writes a record of a batch of 50 about a third dearer than of 200).
   */
  private write(everything: boolean): Promise<void> {
    this.clearTimer();
    this.flushing = this.flushing.then(() => this.writeAll(everything));
    return this.flushing;
  }

  /** Flushes and stops the timer. Records enqueued later are still written by a further `flush`. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
    if (this.pending.length > 0) {
      const count = this.pending.length;
      this.lost += count;
      this.observe(this.pending.splice(0), null);
      this.options.onError?.(new Error("the log store is unavailable and no spool could keep the records"), count);
    }
  }

  /**
   * A full queue: its oldest records (a write's worth, at least a hundredth of the bound, so one
   * record at a time never moves the whole queue) go to the spool, which the write loop replays
   * before the rest, so order holds. Dropped and counted instead where there is no spool, when
   * it fails or is full, or while as many as the queue holds are still on their way to it. Not
   * while the store is down or the writer closes: the write loop spools the whole queue then.
   */
  private makeRoom(): void {
    const excess = Math.ceil(this.maxPending / 100);
    const spool = this.spool;
    if (!spool || this.closed || this.downUntil > 0 || this.overflowing >= this.maxPending) {
      this.pending.splice(0, excess);
      this.dropped += excess;
      return;
    }
    const batch = this.pending.splice(0, Math.max(excess, this.maxBatchSize));
    this.overflowing += batch.length;
    this.overflowWrites = this.overflowWrites.then(async () => {
      try {
        await spool.append(batch);
        this.spooled += batch.length;
        this.spoolBroken = false;
        if (!this.behind) this.options.onStoreEvent?.({ kind: "behind", waiting: this.maxPending, spool: spool.path });
        this.behind = true;
      } catch (error) {
        this.dropped += batch.length;
        this.reportSpoolFailure(error);
      } finally {
        this.overflowing -= batch.length;
      }
    });
  }

  private scheduleFlush(delayMs: number): void {
    if (this.closed) return;
    if (this.timer && delayMs > 0) return;
    this.clearTimer();
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.write(false);
    }, delayMs);
    // A pending flush must not keep a process alive by itself; shutdown flushes explicitly.
    (this.timer as { unref?: () => void }).unref?.();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async writeAll(everything: boolean): Promise<void> {
    // Closing tries the store once more whatever the back-off says, then spools what is left.
    let mayTry = this.closed || Date.now() >= this.downUntil;
    for (;;) {
      // Records of a full queue on their way to the spool are older than every one still queued.
      await this.overflowWrites;
      const spoolWaiting = this.spool !== null && !this.spool.isEmpty;
      if (!mayTry || (this.closed && spoolWaiting && this.downUntil > 0)) {
        // A flush forced by a full batch may have replaced the retry timer: set it again.
        this.scheduleFlush(Math.max(1, this.downUntil - Date.now()));
        return this.spoolPending();
      }
      if (spoolWaiting && !this.closed) {
        if (!(await this.replaySpooled())) mayTry = false;
        continue;
      }
      if (spoolWaiting) return this.spoolPending(); // shutting down: replay is the next start's work
      if (this.pending.length === 0) {
        this.behind = false;
        return this.markUp();
      }
      const batch = this.pending.splice(0, this.maxBatchSize);
      if (await this.store(batch, false)) {
        if (everything || this.closed || this.pending.length === 0 || this.pending.length >= this.options.batchSize) continue;
        this.behind = false;
        this.scheduleFlush(this.options.flushIntervalMs);
        return this.markUp();
      }
      this.pending = batch.concat(this.pending);
      mayTry = false;
    }
  }

  /** Replays the oldest spooled batch; false when the store is (still) down. */
  private async replaySpooled(): Promise<boolean> {
    const spool = this.spool as LogSpool;
    let batch: LogEntry[] | null;
    try {
      batch = await spool.head();
    } catch (error) {
      this.reportSpoolFailure(error);
      return false;
    }
    if (batch === null) return true;
    if (!(await this.store(batch, true))) return false;
    await spool.dropHead().catch((error: unknown) => this.reportSpoolFailure(error));
    return true;
  }

  /**
   * Stores a batch; when that fails and the store still answers, stores its records one by one
   * and sets aside those refused while others were stored. False when the store is down (or
   * refuses everything): the caller keeps the batch and backs off.
   */
  private async store(batch: LogEntry[], replay: boolean): Promise<boolean> {
    let failure: unknown;
    try {
      this.stored(batch, (await this.sink.insertBatch(batch, this.wantsFigures)) ?? null, replay);
      return true;
    } catch (error) {
      failure = error;
    }
    // A store that is down, locked or full (it already waited out its busy timeout) goes
    // straight to the spool: each further try would hold the records queued meanwhile in memory.
    if (isStoreUnavailable(failure)) return this.markDown(failure);
    // Anything else may be a moment's trouble: one more try before looking closer.
    await new Promise((resolve) => setTimeout(resolve, FIRST_RETRY_DELAY_MS));
    try {
      this.stored(batch, (await this.sink.insertBatch(batch, this.wantsFigures)) ?? null, true);
      return true;
    } catch (error) {
      failure = error;
    }
    // A store that refuses every record alike is down: no use trying them one by one.
    if (isStoreUnavailable(failure) || !(await this.answers())) return this.markDown(failure);
    const refused: LogEntry[] = [];
    for (const entry of batch) {
      try {
        this.stored([entry], (await this.sink.insertBatch([entry], this.wantsFigures)) ?? null, replay);
      } catch (error) {
        failure = error;
        refused.push(entry);
      }
    }
    // Refused one by one for what the records hold (a value out of range, a missing field): they
    // are set aside, else one bad record would pass for an outage and hold back every later one.
    if (refused.length === batch.length && !refusesRecord(failure)) return this.markDown(failure);
    if (refused.length > 0) await this.setAside(refused, failure);
    return true;
  }

  private async answers(): Promise<boolean> {
    if (!this.sink.ping) return false;
    try {
      await this.sink.ping();
      return true;
    } catch {
      return false;
    }
  }

  private stored(entries: readonly LogEntry[], figures: readonly RecordFigures[] | null, replay: boolean): void {
    if (replay || this.downUntil > 0) {
      this.retried += entries.length;
      this.replayedSinceDown += entries.length;
    }
    this.observe(entries, figures);
    try {
      this.options.onStored?.(entries);
    } catch (error) {
      this.options.onError?.(error, 0);
    }
  }

  private async setAside(entries: readonly LogEntry[], reason: unknown): Promise<void> {
    this.rejected += entries.length;
    this.options.onStoreEvent?.({ kind: "rejected", count: entries.length, reason: messageOf(reason) });
    await this.spool?.reject(entries).catch((error: unknown) => this.reportSpoolFailure(error));
    this.observe(entries, null);
  }

  /** Moves every pending batch to the spool, in order; what it cannot take stays in memory. */
  private async spoolPending(): Promise<void> {
    if (!this.spool) return;
    while (this.pending.length > 0) {
      // Taken out first: a full queue drops its oldest from `pending` while the append waits.
      const batch = this.pending.splice(0, this.maxBatchSize);
      try {
        await this.spool.append(batch);
      } catch (error) {
        this.pending = batch.concat(this.pending);
        this.reportSpoolFailure(error);
        return;
      }
      this.spooled += batch.length;
      this.spoolBroken = false;
    }
  }

  private markDown(error: unknown): false {
    if (this.downUntil === 0) {
      this.replayedSinceDown = 0;
      this.options.onStoreEvent?.({ kind: "down", reason: messageOf(error), spool: this.spool?.path ?? null });
    } else {
      this.retryDelayMs = Math.min(this.retryDelayMs * 2, this.maxRetryDelayMs);
    }
    this.downUntil = Date.now() + this.retryDelayMs;
    this.scheduleFlush(this.retryDelayMs);
    return false;
  }

  private markUp(): void {
    if (this.downUntil === 0) return;
    this.downUntil = 0;
    this.retryDelayMs = FIRST_RETRY_DELAY_MS;
    this.options.onStoreEvent?.({ kind: "back", replayed: this.replayedSinceDown });
  }

  private reportSpoolFailure(error: unknown): void {
    if (this.spoolBroken) return;
    this.spoolBroken = true;
    this.options.onStoreEvent?.({ kind: "spool_failed", reason: messageOf(error) });
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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
