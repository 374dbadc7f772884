import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * How deliveries are signed, so a receiver can tell them from forgeries and replays: the header
 * `x-gateway-signature: t=<unix seconds>,v1=<hex>` where `v1` is HMAC-SHA256, keyed by the
 * webhook's secret, of `<t>.<raw body>`. The timestamp is signed with the body: a receiver that
 * refuses a `t` more than a few minutes old refuses a replayed delivery.
 */
export const SIGNATURE_HEADER = "x-gateway-signature";

/** The signature header's value for `body` sent at `timestampSec`. Pure. */
export function signatureHeader(secret: string, body: string, timestampSec: number): string {
  return `t=${timestampSec},v1=${createHmac("sha256", secret).update(`${timestampSec}.${body}`).digest("hex")}`;
}

/**
 * Whether `header` signs `body` under `secret` at a time within `toleranceSec` of `nowSec`: what a
 * receiver runs (the docs show the same steps). Never throws.
 */
export function verifySignature(secret: string, header: string | null | undefined, body: string, nowSec: number, toleranceSec = 300): boolean {
  if (!header) return false;
  const parts = new Map(header.split(",").map((part) => [part.slice(0, part.indexOf("=")).trim(), part.slice(part.indexOf("=") + 1).trim()] as const));
  const timestamp = Number(parts.get("t"));
  const signature = parts.get("v1");
  if (!Number.isInteger(timestamp) || !signature || !/^[0-9a-f]{64}$/.test(signature)) return false;
  if (Math.abs(nowSec - timestamp) > toleranceSec) return false;
  const expected = createHmac("sha256", secret).update(`${timestamp}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(signature, "hex"));
}
