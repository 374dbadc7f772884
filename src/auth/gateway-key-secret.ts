import { hash, randomBytes } from "node:crypto";

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

/** Compares two hex hashes in constant time (no early exit on the first difference). Never throws. */
export function hashesEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** The part of a secret that may be shown (prefix plus a few characters). */
export function displayPrefix(secret: string): string {
  return secret.slice(0, SECRET_PREFIX.length + 6);
}
