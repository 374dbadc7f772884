import { hash, randomBytes, timingSafeEqual } from "node:crypto";

const SECRET_PREFIX = "gw_";

/** A new gateway key secret: 32 random bytes, base64url, with a recognisable prefix. */
export function generateGatewayKeySecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64url");
}

/**
 * SHA-256 of the secret, lowercase hex. Secrets are high-entropy random strings, so a fast
 * hash is enough (no password stretching) and keeps the hot path cheap.
 */
export function hashGatewayKey(secret: string): string {
  return hash("sha256", secret, "hex");
}

/** Compares two hex hashes in constant time. Never throws. */
export function hashesEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a, "hex"), Buffer.from(b, "hex"));
}

/** The part of a secret that may be shown (prefix plus a few characters). */
export function displayPrefix(secret: string): string {
  return secret.slice(0, SECRET_PREFIX.length + 6);
}
