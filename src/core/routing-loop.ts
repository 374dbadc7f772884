import { fail, ok, type GatewayError, type Result } from "../errors.ts";
import type { AttemptRecord } from "../logging/log-record.ts";
import type { Target } from "./target-resolution.ts";
import type { UpstreamCall } from "./upstream-call.ts";

/** When a candidate's answer sends the loop to the next candidate instead of the client. */
export interface FallbackPolicy {
  /** Upstream statuses that try the next candidate. */
  statuses: ReadonlySet<number>;
  /** Whether a timeout or a connection failure tries the next candidate. */
  unreachable: boolean;
}

/** The policy of a single target: whatever it answers is the answer. */
export const ANSWER_AS_IS: FallbackPolicy = { statuses: new Set(), unreachable: false };

/** One target in the request's ordered list, with its place in the list. */
export interface Candidate {
  index: number;
  target: Target;
  fallback: FallbackPolicy;
}

/** The call that answers the request, and the candidate that made it. */
export interface Answered {
  candidate: Candidate;
  call: UpstreamCall;
}

/**
 * Tries the candidates in order and returns the first answer that is not passed over. Each try
 * is recorded in `attempts`. `candidates` is never empty. Nothing of an answer reaches the client before this returns, so a
 * fallback never follows bytes already sent. `send` never throws; a client that left ends the loop.
 */
export async function tryTargets(
  candidates: readonly Candidate[],
  send: (candidate: Candidate) => Promise<Result<UpstreamCall, GatewayError>>,
  attempts: AttemptRecord[],
): Promise<Result<Answered, GatewayError>> {
  for (const [position, candidate] of candidates.entries()) {
    const isLast = position === candidates.length - 1;
    const started = performance.now();
    // Wall-clock start for the trace spans built from the log; latency keeps the monotonic clock.
    const startedAt = Date.now();
    const sent = await send(candidate);
    const record = (status: number | null, error: GatewayError | null): void => {
      attempts.push({
        target: candidate.index,
        provider: candidate.target.provider.id,
        model: candidate.target.model,
        status,
        startedAt,
        latencyMs: Math.round((performance.now() - started) * 1000) / 1000,
        errorCode: error?.code ?? null,
        errorMessage: error?.message ?? null,
      });
    };
    if (!sent.ok) {
      record(null, sent.error);
      const unreachable = sent.error.code === "upstream_unreachable" || sent.error.code === "request_timeout";
      if (isLast || !(unreachable && candidate.fallback.unreachable)) return fail(sent.error);
      continue;
    }
    const { status } = sent.value.response;
    record(status, null);
    if (isLast || !candidate.fallback.statuses.has(status)) return ok({ candidate, call: sent.value });
    sent.value.abort();
    void sent.value.response.body?.cancel().catch(() => undefined);
  }
  // The last candidate always returns: only an empty list, which resolution never gives, gets here.
  throw new Error("tryTargets needs at least one candidate");
}
