import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { AttemptRecord } from "../records/log-record.ts";
import { breakerKey, type CircuitBreakers } from "./circuit-breaker.ts";
import type { BreakerPolicy, FallbackPolicy, RetryPolicy, TargetSettings } from "./routing-plan.ts";
import type { Target } from "../operation/target.ts";
import type { UpstreamCall } from "../net/upstream-call.ts";
import { droppedHeadersNote } from "../net/header-rules.ts";

/** The policy of a single target: whatever it answers is the answer. */
export const ANSWER_AS_IS: FallbackPolicy = { statuses: new Set(), unreachable: false };

/** One target in the request's ordered list, with its place in the list and in the config. */
export interface Candidate {
  index: number;
  /** The target's place in the config (`"1"`, `"1.0"`; `""` for the root or no config). */
  path: string;
  target: Target;
  /** The config's settings for this target (overrides, timeout); empty without a config. */
  settings: TargetSettings;
  fallback: FallbackPolicy;
  retry: RetryPolicy;
  breaker: BreakerPolicy | null;
}

/** The call that answers the request, the candidate that made it, and how many retries it took. */
export interface Answered {
  candidate: Candidate;
  call: UpstreamCall;
  /** Retries of the answering candidate (0 when its first try answered). */
  retries: number;
}

export interface LoopOptions {
  attempts: AttemptRecord[];
  breakers: CircuitBreakers | null;
  /** False for a body that streams as it arrives: it can be sent once, so there is one try. */
  replayable: boolean;
  clientSignal?: AbortSignal;
  /** Waits between retries (tests pass a fake). Resolves false when the client left. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<boolean>;
  random?: () => number;
}

/** Backoff: 250 ms doubled each retry, at most 8 s, with full jitter. */
const BACKOFF_BASE_MS = 250;
const BACKOFF_MAX_MS = 8_000;
/** A `Retry-After` longer than this ends the retries: waiting would hold the client too long. */
export const MAX_RETRY_AFTER_MS = 30_000;

/**
 * Tries the candidates in order, each up to its retries, and returns the first answer that is
 * not passed over. Every try is recorded in `attempts`, and counted by the candidate's circuit
 * breaker; a candidate whose circuit is open is skipped (recorded as `circuit_open`). Nothing
 * of an answer reaches the client before this returns, so a retry or fallback never follows
 * bytes already sent. `send` never throws; a client that left ends the loop.
 */
export async function tryTargets(
  candidates: readonly Candidate[],
  send: (candidate: Candidate) => Promise<Result<UpstreamCall, GatewayError>>,
  options: LoopOptions,
): Promise<Result<Answered, GatewayError>> {
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  const tried = options.replayable ? candidates : candidates.slice(0, 1);
  let skipped = 0;
  for (const [position, candidate] of tried.entries()) {
    const isLast = position === tried.length - 1;
    const breaker = candidate.breaker && options.breakers ? { key: breakerKey(candidate.target), policy: candidate.breaker, breakers: options.breakers } : null;
    if (breaker && !(await breaker.breakers.allows(breaker.key, breaker.policy))) {
      recordAttempt(options.attempts, candidate, 0, null, new GatewayError("service_unavailable", "Skipped: its circuit is open after repeated failures."), performance.now(), Date.now());
      skipped += 1;
      if (isLast) return fail(allSkipped(skipped, tried.length));
      continue;
    }
    const retries = options.replayable ? candidate.retry.attempts : 0;
    for (let retry = 0; ; retry += 1) {
      const started = performance.now();
      // Wall-clock start for the trace spans built from the log; latency keeps the monotonic clock.
      const startedAt = Date.now();
      const sent = await send(candidate);
      if (!sent.ok) {
        recordAttempt(options.attempts, candidate, retry, null, sent.error, started, startedAt);
        if (sent.error.code === "client_closed") return sent;
        const unreachable = sent.error.code === "upstream_unreachable";
        const timedOut = sent.error.code === "request_timeout";
        if (breaker && (unreachable || timedOut)) await breaker.breakers.record(breaker.key, breaker.policy, true);
        if (unreachable && retry < retries) {
          if (!(await sleep(backoffMs(retry, random), options.clientSignal))) return fail(new GatewayError("client_closed", "The client closed the request."));
          continue;
        }
        if (!isLast && candidate.fallback.unreachable && (unreachable || timedOut)) break;
        return sent;
      }
      const { status } = sent.value.response;
      recordAttempt(options.attempts, candidate, retry, status, null, started, startedAt, droppedHeadersNote(sent.value.response.headers));
      if (breaker) await breaker.breakers.record(breaker.key, breaker.policy, breaker.policy.statuses.has(status));
      const wait = retry < retries && candidate.retry.statuses.has(status) ? retryDelayMs(sent.value.response.headers, retry, random) : null;
      if (wait !== null) {
        discard(sent.value);
        if (!(await sleep(wait, options.clientSignal))) return fail(new GatewayError("client_closed", "The client closed the request."));
        continue;
      }
      if (isLast || !candidate.fallback.statuses.has(status)) return ok({ candidate, call: sent.value, retries: retry });
      discard(sent.value);
      break;
    }
  }
  // The last candidate always returns: only an empty list, which resolution never gives, gets here.
  throw new Error("tryTargets needs at least one candidate");
}

function allSkipped(skipped: number, total: number): GatewayError {
  return new GatewayError(
    "service_unavailable",
    skipped === total ? "Every target of the config is skipped: their circuits are open after repeated failures. Try again after the cool-down." : "The last target's circuit is open after repeated failures.",
  );
}

/** Records one try of a candidate in `attempts`. */
export function recordAttempt(
  attempts: AttemptRecord[],
  candidate: Candidate,
  retry: number,
  status: number | null,
  error: GatewayError | null,
  started: number,
  startedAt: number,
  note: string | null = null,
): void {
  attempts.push({
    target: candidate.index,
    path: candidate.path,
    retry,
    provider: candidate.target.provider.id,
    model: candidate.target.model,
    status,
    startedAt,
    latencyMs: Math.round((performance.now() - started) * 1000) / 1000,
    errorCode: error?.code ?? null,
    errorMessage: error?.message ?? null,
    ...(note !== null && { note }),
  });
}

/**
 * Whether a candidate's policy passes a failed try on to the next candidate: an upstream that
 * could not be reached or timed out, or an answer status the policy names.
 */
export function fallsBack(candidate: Candidate, sent: Result<UpstreamCall, GatewayError>): boolean {
  if (sent.ok) return candidate.fallback.statuses.has(sent.value.response.status);
  return candidate.fallback.unreachable && (sent.error.code === "upstream_unreachable" || sent.error.code === "request_timeout");
}

/** An answer passed over: its request ended and its body dropped. */
export function discard(call: UpstreamCall): void {
  call.abort();
  void call.response.body?.cancel().catch(() => undefined);
}

function backoffMs(retry: number, random: () => number): number {
  return Math.round(random() * Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** retry));
}

/**
 * How long to wait before retrying an answer: what the upstream asks (`retry-after-ms`, or
 * `retry-after` in seconds or as a date) when it asks at most `MAX_RETRY_AFTER_MS`, else the
 * backoff; null (no retry) when it asks for longer.
 */
export function retryDelayMs(headers: Headers, retry: number, random: () => number, now = Date.now()): number | null {
  const asked = askedDelayMs(headers, now);
  if (asked === null) return backoffMs(retry, random);
  return asked > MAX_RETRY_AFTER_MS ? null : asked;
}

function askedDelayMs(headers: Headers, now: number): number | null {
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.has("retry-after-ms") && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get("retry-after")?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Resolves true after `ms`, or false as soon as the client leaves. */
function abortableSleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
