import { GatewayError } from "../errors.ts";

/** The longest grace period a rotation may give the replaced secret: 30 days. */
export const MAX_GRACE_PERIOD_SECONDS = 30 * 24 * 3600;
/** The grace period when a rotation names none: one day, time to roll the new secret out. */
export const DEFAULT_GRACE_PERIOD_SECONDS = 24 * 3600;

/**
 * A requested `expires_at` as the store keeps instants (`toISOString()`, so they compare as
 * text). A date in the past, or none at all, is a 400 naming the field: a key created or
 * changed to be already expired is a mistake, and revocation is the way to stop one now.
 */
export function storedExpiry(value: string, now: number = Date.now()): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new GatewayError("invalid_request", "expires_at must be an ISO 8601 date-time.", { param: "expires_at" });
  if (ms <= now) throw new GatewayError("invalid_request", "expires_at must be in the future.", { param: "expires_at" });
  return new Date(ms).toISOString();
}

/** The instant an ISO time stands for, in ms; null for null (no expiry). */
export function instantOf(iso: string | null): number | null {
  if (iso === null) return null;
  const ms = Date.parse(iso);
  // An unreadable stored instant counts as passed: refusing is the safe side.
  return Number.isNaN(ms) ? 0 : ms;
}
