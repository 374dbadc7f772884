import { GatewayError } from "../errors.ts";
import type { RunLimits as RunLimitsBody } from "../generated/schemas.gen.ts";
import type { RunLimits } from "../records/run-limits.ts";

/**
 * `run_limits` as stored and as shown. The document bounds each value (at least 1, or
 * $0.000001); what it cannot say is refused here: `velocity_scope` without the limit it scopes.
 * `param` is where the object sits (`run_limits`, `config.run_limits`). Throws GatewayError (400).
 */
export function storedRunLimits(body: RunLimitsBody, param = "run_limits"): RunLimits {
  if (body.velocity_scope !== undefined && body.max_cost_usd_per_minute === undefined) {
    throw new GatewayError("invalid_request", `${param}.velocity_scope scopes max_cost_usd_per_minute, which is not set.`, { param: `${param}.velocity_scope` });
  }
  return {
    maxRequests: body.max_requests ?? null,
    maxToolCalls: body.max_tool_calls ?? null,
    maxCostUsd: body.max_cost_usd ?? null,
    maxDurationSeconds: body.max_duration_seconds ?? null,
    repeatLimit: body.repeat_limit ?? null,
    velocity: body.max_cost_usd_per_minute === undefined ? [] : [{ scope: body.velocity_scope ?? "run", maxCostUsdPerMinute: body.max_cost_usd_per_minute }],
  };
}

/** Run limits as the API shows them: only the rules that are set. */
export function runLimitsView(limits: RunLimits | null | undefined): RunLimitsBody | null {
  if (!limits) return null;
  const view: RunLimitsBody = {};
  if (limits.maxRequests !== null) view.max_requests = limits.maxRequests;
  if (limits.maxToolCalls !== null) view.max_tool_calls = limits.maxToolCalls;
  if (limits.maxCostUsd !== null) view.max_cost_usd = limits.maxCostUsd;
  if (limits.maxDurationSeconds !== null) view.max_duration_seconds = limits.maxDurationSeconds;
  if (limits.repeatLimit !== null) view.repeat_limit = limits.repeatLimit;
  const velocity = limits.velocity[0];
  if (velocity) {
    view.max_cost_usd_per_minute = velocity.maxCostUsdPerMinute;
    view.velocity_scope = velocity.scope;
  }
  return view;
}
