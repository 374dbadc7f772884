/**
 * A run is the requests that share an `x-gateway-trace-id`: an agent's model calls and MCP tool
 * calls. Its limits (`run_limits` on a config or a gateway key) halt it when one trips; the
 * request that trips it, and every later one of the run, are refused until an admin resumes it.
 */
export interface RunLimits {
  maxRequests: number | null;
  maxToolCalls: number | null;
  maxCostUsd: number | null;
  maxDurationSeconds: number | null;
  /** The most times the same request (or tool call with the same arguments) may be sent in the run. */
  repeatLimit: number | null;
  /** Spend-velocity rules: at most `maxCostUsdPerMinute` over the last minute, of the run, the key or the end user. */
  velocity: readonly VelocityRule[];
}

export const VELOCITY_SCOPES = ["run", "key", "user"] as const;
export type VelocityScope = (typeof VELOCITY_SCOPES)[number];

export interface VelocityRule {
  scope: VelocityScope;
  maxCostUsdPerMinute: number;
}

/** The rules whose trip halts a run, as errors and events name them. */
export const RUN_RULES = ["max_requests", "max_tool_calls", "max_cost_usd", "max_duration_seconds", "repeat_limit", "max_cost_usd_per_minute"] as const;
export type RunRule = (typeof RUN_RULES)[number];

/** Both sets of limits at once: each rule at the stricter of the two, every velocity rule of either (one per scope, the stricter). */
export function mergedRunLimits(a: RunLimits | null | undefined, b: RunLimits | null | undefined): RunLimits | null {
  if (!a) return b ?? null;
  if (!b) return a;
  const min = (x: number | null, y: number | null) => (x === null ? y : y === null ? x : Math.min(x, y));
  const velocity = new Map<VelocityScope, VelocityRule>();
  for (const rule of [...a.velocity, ...b.velocity]) {
    const seen = velocity.get(rule.scope);
    if (!seen || rule.maxCostUsdPerMinute < seen.maxCostUsdPerMinute) velocity.set(rule.scope, rule);
  }
  return {
    maxRequests: min(a.maxRequests, b.maxRequests),
    maxToolCalls: min(a.maxToolCalls, b.maxToolCalls),
    maxCostUsd: min(a.maxCostUsd, b.maxCostUsd),
    maxDurationSeconds: min(a.maxDurationSeconds, b.maxDurationSeconds),
    repeatLimit: min(a.repeatLimit, b.repeatLimit),
    velocity: [...velocity.values()],
  };
}
