import type { AttemptRecord } from "../../../records/log-record.ts";
import { breakerKey, type CircuitBreakers } from "../../../pipeline/circuit-breaker.ts";
import { discard, fallsBack, recordAttempt, type Candidate } from "../../../pipeline/routing-loop.ts";
import type { RoundCall } from "./run-driver.ts";

/**
 * A tool run's model rounds across the request's targets. The first round is the routing loop's
 * (its failure is the target's, and the loop falls back). A later round that fails after tools
 * have run is passed on here, by the failing target's fallback policy, to the next target, which
 * gets the same round: the conversation so far with every call the gateway ran and its output,
 * so no MCP tool runs again. Each such try is recorded in `attempts()` (the array the request's
 * attempts go to at that moment) as the loop records its own; the run stays on the target that
 * answered. Never throws.
 */
export function roundsWithFallback(
  candidates: readonly Candidate[],
  first: Candidate,
  roundFor: (candidate: Candidate) => RoundCall,
  options: { attempts: () => AttemptRecord[]; breakers: CircuitBreakers | null },
): RoundCall {
  let current = first;
  let round = roundFor(first);
  let calls = 0;
  return async (body) => {
    calls += 1;
    // The first round's failure is the routing loop's to pass on.
    if (calls === 1) return round(body);
    let switched = false;
    for (;;) {
      const started = performance.now();
      const startedAt = Date.now();
      const answered = await round(body);
      if (answered.ok) {
        if (switched) recordAttempt(options.attempts(), current, 0, answered.status, null, started, startedAt);
        return answered;
      }
      const { failure } = answered;
      recordAttempt(options.attempts(), current, 0, failure.ok ? failure.value.response.status : null, failure.ok ? null : failure.error, started, startedAt);
      const next = fallsBack(current, failure) ? await nextCandidate(candidates, current, options) : null;
      if (!next) return answered;
      if (failure.ok) discard(failure.value);
      current = next;
      round = roundFor(next);
      switched = true;
    }
  };
}

/** The candidate after `current` in the request's order whose circuit is not open (skipped ones recorded); null when none is left. */
async function nextCandidate(candidates: readonly Candidate[], current: Candidate, options: { breakers: CircuitBreakers | null }): Promise<Candidate | null> {
  for (const candidate of candidates.slice(candidates.indexOf(current) + 1)) {
    if (candidate.breaker && options.breakers && !(await options.breakers.allows(breakerKey(candidate.target), candidate.breaker))) continue;
    return candidate;
  }
  return null;
}

/**
 * Where a tool run's later tries are recorded: a run not streamed ends inside the routing loop's
 * own try, which the loop records after it, so its later tries wait until the loop has ended and
 * then follow that record; a streamed run's come after the loop and go straight to `attempts`.
 */
export class RoundAttempts {
  private loopDone = false;
  private readonly waiting: AttemptRecord[] = [];

  constructor(private readonly attempts: AttemptRecord[]) {}

  readonly sink = (): AttemptRecord[] => (this.loopDone ? this.attempts : this.waiting);

  /** The routing loop has ended: the tries that waited follow its records. */
  loopEnded(): void {
    this.loopDone = true;
    this.attempts.push(...this.waiting.splice(0));
  }
}
