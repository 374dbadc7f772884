import { GatewayError } from "../errors.ts";
import type { KeyCounts, MeteredKey, Refusal } from "./meter-plan.ts";
import { toUsd } from "./estimate.ts";
import { secondsUntil } from "./windows.ts";

type Dimension = "requests" | "tokens";

/**
 * The `x-ratelimit-*-requests` and `-tokens` headers of a metered answer: of every limited
 * window of every key, the one with the least left (the sooner reset on a tie). Resets are in
 * whole seconds (`12s`). Empty when no key has a rate limit. Pure.
 */
export function rateLimitHeaders(keys: readonly MeteredKey[], counts: readonly KeyCounts[], nowMs: number): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const dimension of ["requests", "tokens"] as const) {
    let best: { limit: number; remaining: number; endMs: number } | null = null;
    for (const [keyIndex, key] of keys.entries()) {
      for (const [windowIndex, slot] of key.windows.entries()) {
        const limit = dimension === "requests" ? slot.requestLimit : slot.tokenLimit;
        if (limit === null) continue;
        const used = counts[keyIndex]?.windows[windowIndex]?.[dimension === "requests" ? 0 : 1] ?? 0;
        const remaining = Math.max(0, limit - used);
        if (!best || remaining < best.remaining || (remaining === best.remaining && slot.endMs < best.endMs)) best = { limit, remaining, endMs: slot.endMs };
      }
    }
    if (!best) continue;
    headers[`x-ratelimit-limit-${dimension}`] = String(best.limit);
    headers[`x-ratelimit-remaining-${dimension}`] = String(best.remaining);
    headers[`x-ratelimit-reset-${dimension}`] = `${secondsUntil(best.endMs, nowMs)}s`;
  }
  return headers;
}

/**
 * `x-gateway-budget-alert`: each budget whose settled spend has reached its lowest alert
 * threshold, as `<label> at <percent>% of $<limit>`, joined by `, `. Null when none has.
 */
export function budgetAlertHeader(keys: readonly MeteredKey[], counts: readonly KeyCounts[]): string | null {
  const alerts: string[] = [];
  for (const [index, key] of keys.entries()) {
    const budget = key.budget;
    const lowest = budget?.alertThresholds[0];
    if (!budget || lowest === undefined) continue;
    const spent = counts[index]?.spentUnits ?? 0;
    if (spent >= lowest * budget.limitUnits) {
      alerts.push(`${key.label.replace(/"/g, "")} at ${Math.floor((spent / budget.limitUnits) * 100)}% of $${toUsd(budget.limitUnits)}`);
    }
  }
  return alerts.length > 0 ? alerts.join(", ") : null;
}

/** The 412 or 429 of a refused request, naming the key and the limit, with its rate-limit headers. */
export function refusalError(refusal: Refusal, keys: readonly MeteredKey[], counts: readonly KeyCounts[], nowMs: number): GatewayError {
  const key = keys[refusal.keyIndex]!;
  const headers = rateLimitHeaders(keys, counts, nowMs);
  if (refusal.reason === "budget") {
    const budget = key.budget!;
    const count = counts[refusal.keyIndex]!;
    const resets = budget.resetsAt ? ` It resets at ${budget.resetsAt.toISOString()}.` : "";
    return new GatewayError(
      "budget_exhausted",
      `The budget of ${key.label} is exhausted: $${formatUsd(count.spentUnits)} spent and $${formatUsd(count.reservedUnits)} reserved by calls in flight, of a $${toUsd(budget.limitUnits)} limit.${resets}`,
      { headers },
    );
  }
  const slot = key.windows[refusal.windowIndex]!;
  const limit = refusal.reason === "requests" ? slot.requestLimit : slot.tokenLimit;
  const retryAfter = secondsUntil(slot.endMs, nowMs);
  return new GatewayError(
    "rate_limited",
    `Rate limit of ${key.label} reached: ${limit} ${refusal.reason} per ${slot.name}. Retry in ${retryAfter} s.`,
    { headers: { ...headers, [`x-ratelimit-remaining-${refusal.reason}`]: "0", [`x-ratelimit-reset-${refusal.reason}`]: `${retryAfter}s`, [`x-ratelimit-limit-${refusal.reason}`]: String(limit), "retry-after": String(retryAfter) } },
  );
}

function formatUsd(units: number): string {
  return toUsd(units).toFixed(6).replace(/0{1,4}$/, "");
}
