import type { GatewayDeps } from "../deps.ts";
import { GatewayError } from "../errors.ts";
import type { VirtualKeyBudget, VirtualKeyRateLimit } from "../generated/schemas.gen.ts";
import type { Provider } from "../providers/provider.ts";
import type { NewVirtualKey } from "../store/control-plane-repositories.ts";

/** A provider without a default base URL (`openai-compatible`) is unusable without a custom host. */
export function requireBaseUrl(provider: Provider): void {
  if (provider.baseUrl === null) {
    throw new GatewayError("invalid_request", `Provider "${provider.id}" needs a custom_host.`, { param: "custom_host" });
  }
}

/**
 * Runs the SSRF guard on a custom host given in an admin write. A refusal (or a host that
 * cannot be resolved, so cannot be verified) is a 400 naming the body field `param` in its
 * message and as `param`; the guard's messages never echo credentials, path or query.
 */
export async function allowedCustomHost(url: string, param: string, deps: Pick<GatewayDeps, "checkCustomHost">): Promise<void> {
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

export function storedBudget(budget: VirtualKeyBudget | null): NewVirtualKey["budget"] {
  return budget ? { creditLimitUsd: budget.credit_limit_usd, period: budget.period } : null;
}

/** `{}` sets no limit, so it is stored as none. */
export function storedRateLimit(limit: VirtualKeyRateLimit | null): NewVirtualKey["rateLimit"] {
  if (!limit || (limit.requests_per_minute === undefined && limit.tokens_per_minute === undefined)) return null;
  return { requestsPerMinute: limit.requests_per_minute ?? null, tokensPerMinute: limit.tokens_per_minute ?? null };
}
