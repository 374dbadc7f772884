import { createCipheriv, randomBytes } from "node:crypto";

/**
 * Test-only (imported by `*.test.ts` only). A value as the gateway sealed it before sealed
 * values named their master key: `v1.<iv>.<tag>.<ciphertext>`, no key id, no additional data.
 * Stores written then still hold such values; `createSecretBox` opens them.
 */
export function legacySeal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", ...[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString("base64url"))].join(".");
}
