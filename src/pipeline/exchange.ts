import { isoNow, uuidv7 } from "../lib/ids.ts";
import type { LogEntry } from "../logging/log-entry.ts";
import { emptyOutcome, logEntryOf, type AnswerEnding, type Outcome, type PendingEnding, type RefusedAnswer, type RequestFacts } from "../logging/outcome.ts";

/** An error the request ended with, as the log keeps it. */
export interface EndedWith {
  status: number;
  error: { code: string | null; message: string } | null;
  /** The error body the client got, when the answer was an error. */
  errorBody?: unknown;
}

/**
 * One request's way to its log record. The route hands over its pipeline's outcome once
 * (`handOver`); the request logger then `settle`s: the record is built once, from the facts,
 * the outcome and the answer's ending (a stream's when it ends), and queued for the writer.
 * Nothing reads a record back from here.
 */
export class Exchange {
  // One clock reading for both: the id's millisecond is the log's time, which lets the store
  // read a time range through the ids (`ID_MARGIN_MS`).
  private readonly startMs = Date.now();
  readonly id = uuidv7(this.startMs);
  readonly createdAt = isoNow(this.startMs);
  readonly startedAt = performance.now();
  private handed: { outcome: Outcome; ending: PendingEnding | null; refused: RefusedAnswer | null } | null = null;
  private errorBody: unknown = undefined;
  private settled = false;
  private listeners: ((entry: LogEntry) => void)[] | null = null;

  constructor(
    /** Replaced, never changed, once the route's headers are read (trace, spans, metadata). */
    public facts: RequestFacts,
    /** How the operation's answers are read, and its telemetry name: known before anything is served. */
    private readonly operation: Pick<Outcome, "format" | "genAiOperation">,
    private readonly queue: (entry: LogEntry) => void,
    private readonly onSettled: () => void,
    /** The log keeps at most this many bytes of each body (`GATEWAY_MAX_LOGGED_BODY_BYTES`). */
    private readonly maxBodyBytes = Number.POSITIVE_INFINITY,
  ) {}

  /** The outcome of a request refused before the pipeline's stages: the operation's facts alone. */
  baseOutcome(): Outcome {
    return emptyOutcome(this.operation.format, this.operation.genAiOperation);
  }

  /** The caller's trace id, or this request's log id when it sent none. */
  get traceId(): string {
    return this.facts.traceId ?? this.id;
  }

  /**
   * The outcome the route's pipeline returned, with its answer's ending when it answered; for a
   * refusal after the upstream answered, what the log keeps of that answer.
   */
  handOver(outcome: Outcome, ending: PendingEnding | null = null, refused: RefusedAnswer | null = null): void {
    this.handed = { outcome, ending, refused };
  }

  /** True when the answer ends after the route returns (a relayed stream, a realtime session). */
  get endsLater(): boolean {
    return this.handed?.ending instanceof Promise;
  }

  /** The error body the client got, when something after the app's error handler reshaped it (Anthropic's errors). */
  answeredErrorBody(body: unknown): void {
    this.errorBody = body;
  }

  /** Calls `listener` with the record's entry once it is built (the spend meter settles there). Never twice. */
  whenSettled(listener: (entry: LogEntry) => void): void {
    (this.listeners ??= []).push(listener);
  }

  /**
   * Builds and queues the record once: from the handed-over ending, or when none came or the
   * app answered an error, from how it answered. A pending ending is waited for. Never throws.
   */
  settle(answered: EndedWith): void {
    if (this.settled) return;
    this.settled = true;
    const outcome = this.handed?.outcome ?? this.baseOutcome();
    const ending = answered.error ? null : this.handed?.ending;
    if (ending instanceof Promise) {
      ending.then(
        (value) => this.finish(outcome, value),
        () => this.finish(outcome, fromAnswer(answered, undefined, null)),
      );
      return;
    }
    this.finish(outcome, ending ?? fromAnswer(answered, this.errorBody, this.handed?.refused ?? null));
  }

  private finish(outcome: Outcome, ending: AnswerEnding): void {
    const entry = logEntryOf({ id: this.id, createdAt: this.createdAt, startedAt: this.startedAt, traceId: this.traceId, facts: this.facts }, outcome, ending, this.maxBodyBytes);
    this.queue(entry);
    for (const listener of this.listeners ?? []) {
      try {
        listener(entry);
      } catch {
        // A listener's failure is its own; the log and the request go on.
      }
    }
    this.onSettled();
  }
}

/**
 * The ending of a request refused or failed: a reshaped error body (what the client got), else
 * the upstream's answer as far as it was read when one was kept, else the app's error body.
 */
function fromAnswer(answered: EndedWith, errorBody: unknown, refused: RefusedAnswer | null): AnswerEnding {
  const response =
    errorBody !== undefined
      ? { kind: "error" as const, body: errorBody }
      : (refused?.response ?? (answered.errorBody === undefined ? null : { kind: "error" as const, body: answered.errorBody }));
  return { status: answered.status, error: answered.error, response, firstTokenAt: refused?.answeredAt ?? null };
}
