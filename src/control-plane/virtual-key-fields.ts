import type { CheckCustomHost } from "../net/custom-host.ts";
import { GatewayError } from "../errors.ts";
import type { VirtualKeyBudget, VirtualKeyRateLimit } from "../generated/schemas.gen.ts";
import type { Provider } from "../providers/provider.ts";
import type { KeyBudget, KeyRateLimit } from "../records/control-plane.ts";

/**
 * A provider without a default base URL (`openai-compatible`) is unusable without a custom host,
 * unless its credential fields give one (Bedrock's region, Azure's resource), from the key or
 * from the request.
 */
export function requireBaseUrl(provider: Provider): void {
  if (provider.baseUrl === null && provider.baseUrlFrom === undefined) {
    throw new GatewayError("invalid_request", `Provider "${provider.id}" needs a custom_host.`, { param: "custom_host" });
  }
}

/**
 * Runs the SSRF guard on a custom host given in an admin write. A refusal (or a host that
 * cannot be resolved, so cannot be verified) is a 400 naming the body field `param` in its
 * message and as `param`; the guard's messages never echo credentials, path or query.
 */
export async function allowedCustomHost(url: string, param: string, deps: { checkCustomHost: CheckCustomHost }): Promise<void> {
  const checked = await deps.checkCustomHost(url, param);
  if (checked.ok) return;
  const code = checked.error.status === 400 ? checked.error.code : "invalid_request";
  throw new GatewayError(code, checked.error.message, { param });
}

/**
 * The last four characters of the upstream key, shown as `****abcd`. A key shorter than
 * 16 characters gets no hint: four characters would give away too much of it.
 */
export function keyHint(key: string): string {
  return key.length >= 16 ? key.slice(-4) : "";
}

export function storedBudget(budget: VirtualKeyBudget | null): KeyBudget | null {
  return budget ? { creditLimitUsd: budget.credit_limit_usd, period: budget.period, alertThreshold: budget.alert_threshold ?? null } : null;
}

/** `{}` sets no limit, so it is stored as none. */
export function storedRateLimit(limit: VirtualKeyRateLimit | null): KeyRateLimit | null {
  if (!limit) return null;
  const stored: KeyRateLimit = {
    requestsPerMinute: limit.requests_per_minute ?? null,
    requestsPerHour: limit.requests_per_hour ?? null,
    requestsPerDay: limit.requests_per_day ?? null,
    tokensPerMinute: limit.tokens_per_minute ?? null,
    tokensPerHour: limit.tokens_per_hour ?? null,
    tokensPerDay: limit.tokens_per_day ?? null,
  };
  return Object.values(stored).every((value) => value === null) ? null : stored;
}

/** A stored budget as the API shows it (on virtual keys and gateway keys alike). */
export function budgetView(budget: KeyBudget | null): VirtualKeyBudget | null {
  if (!budget) return null;
  return { credit_limit_usd: budget.creditLimitUsd, period: budget.period, ...(budget.alertThreshold !== null && { alert_threshold: budget.alertThreshold }) };
}

/** A stored rate limit as the API shows it: only the windows that are set. */
export function rateLimitView(limit: KeyRateLimit | null): VirtualKeyRateLimit | null {
  if (!limit) return null;
  const view: VirtualKeyRateLimit = {};
  if (limit.requestsPerMinute !== null) view.requests_per_minute = limit.requestsPerMinute;
  if (limit.requestsPerHour !== null) view.requests_per_hour = limit.requestsPerHour;
  if (limit.requestsPerDay !== null) view.requests_per_day = limit.requestsPerDay;
  if (limit.tokensPerMinute !== null) view.tokens_per_minute = limit.tokensPerMinute;
  if (limit.tokensPerHour !== null) view.tokens_per_hour = limit.tokensPerHour;
  if (limit.tokensPerDay !== null) view.tokens_per_day = limit.tokensPerDay;
  return view;
}
