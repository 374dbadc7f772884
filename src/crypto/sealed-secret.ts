import type { SecretBox } from "./secret-box.ts";

/**
 * A secret as it sits inside stored JSON (a config's `api_key`, a webhook check's header):
 * `{"$sealed": "<SecretBox output>"}`. Every route takes these secrets as strings, so no value
 * a user sends can have this form: a stored secret is told apart by its structure, never by
 * its text, and every string a user sends is sealed whatever it says.
 */
export interface SealedSecret {
  $sealed: string;
}

/** What every route shows in place of a stored secret; sent back in an update, it keeps that secret. */
export const MASKED_SECRET = "********";

export function isSealedSecret(value: unknown): value is SealedSecret {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as Partial<SealedSecret>).$sealed === "string" &&
    Object.keys(value).length === 1
  );
}

export function sealSecret(plaintext: string, box: SecretBox): SealedSecret {
  return { $sealed: box.seal(plaintext) };
}

/** The plaintext; null when the value does not open (altered, or sealed under another master key). Never throws. */
export function openSealedSecret(value: SealedSecret, box: SecretBox): string | null {
  try {
    return box.open(value.$sealed);
  } catch {
    return null;
  }
}

/**
 * What re-sealing after a master-key rotation does to one box output: the same plaintext
 * sealed under the key that seals now; null when it already is (nothing to write) or does not
 * open (left as it is: the caller counts it). Never throws.
 */
export function resealBoxOutput(sealed: string, box: SecretBox): { resealed: string } | { unopened: true } | null {
  if (box.isCurrent(sealed)) return null;
  let plaintext: string;
  try {
    plaintext = box.open(sealed);
  } catch {
    return { unopened: true };
  }
  return { resealed: box.seal(plaintext) };
}
