import type { RunHalted } from "../runs/run-breaker.ts";
import type { WebhookEvent } from "./webhook-events.ts";

/** `run.halted`: a rule of a run's breaker tripped (once per halt). */
export function runHaltedEvent(halted: RunHalted): WebhookEvent {
  const subject = halted.run ? `run:${halted.run.traceId}` : halted.halt.scope === "key" ? `key:${halted.gatewayKeyId}` : `user:${halted.endUser}`;
  return {
    type: "run.halted",
    workspaceId: halted.workspaceId,
    dedupKey: `${subject}:${halted.halt.rule}:${halted.halt.halted_at}`,
    data: {
      trace_id: halted.run?.traceId ?? null,
      api_key_id: halted.gatewayKeyId,
      user: halted.endUser,
      rule: halted.halt.rule,
      value: halted.halt.value,
      limit: halted.halt.limit,
      scope: halted.halt.scope,
      halted_at: halted.halt.halted_at,
    },
  };
}
