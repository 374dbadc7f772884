import type { SecretBox } from "../crypto/secret-box.ts";
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import { isSealedSecret, MASKED_SECRET, openSealedSecret, sealSecret, type SealedSecret } from "../crypto/sealed-secret.ts";
import type { GuardrailCheckSpec } from "./control-plane.ts";
import { movedSecretError, sameUrl } from "./secret-destinations.ts";

/**
 * The secrets inside guardrail checks: the header values of `webhook` checks (an
 * `authorization` token, say). Sealed at rest (`crypto/sealed-secret.ts`), masked in every
 * view, opened only when the guardrail is loaded to run. A plain string can only be in a
 * guardrail saved before headers were sealed: it is used as it stands, and sealed when the
 * gateway starts (`sealStoredGuardrailHeaders`) or the guardrail is next saved.
 */
type Headers = Record<string, unknown>;

function headersOf(check: GuardrailCheckSpec | undefined): Headers | null {
  if (check?.type !== "webhook") return null;
  const headers = check.params.headers;
  return headers && typeof headers === "object" && !Array.isArray(headers) ? (headers as Headers) : null;
}

function mapHeaders(checks: readonly GuardrailCheckSpec[], map: (value: unknown, name: string, index: number) => unknown): GuardrailCheckSpec[] {
  return checks.map((check, index) => {
    const headers = headersOf(check);
    if (!headers) return check;
    const mapped = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, map(value, name, index)]));
    return { ...check, params: { ...check.params, headers: mapped } };
  });
}

function urlOf(check: GuardrailCheckSpec | undefined): string | null {
  const url = check?.params.url;
  return typeof url === "string" ? url : null;
}

/** The stored value of header `name` (any case) in the webhook check at `index` of `checks`. */
function storedHeader(checks: readonly GuardrailCheckSpec[] | null, index: number, name: string): unknown {
  const headers = headersOf(checks?.[index]);
  if (!headers) return undefined;
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : headers[key];
}

/**
 * The checks as stored: every header value sealed, whatever its text. The mask (`********`)
 * keeps the value stored for the same header of the same check in `previous` (the checks an
 * update replaces); with none there it is a 400 naming `checks.<i>.params.headers.<name>`.
 * A kept value goes only to the URL it went to: a new `url` for that check is a 400 naming
 * `checks.<i>.params.url`, since changing where a secret goes takes the secret itself.
 * Throws only GatewayError.
 */
export function sealCheckSecrets(checks: readonly GuardrailCheckSpec[], box: SecretBox, previous: readonly GuardrailCheckSpec[] | null = null): GuardrailCheckSpec[] {
  return mapHeaders(checks, (value, name, index) => {
    if (value !== MASKED_SECRET) return sealSecret(String(value), box);
    const kept = storedHeader(previous, index, name);
    if ((isSealedSecret(kept) || typeof kept === "string") && !sameUrl(urlOf(checks[index]), urlOf(previous?.[index]))) {
      throw movedSecretError(`checks.${index}.params.url`, `the stored header values of checks.${index}`, "send the header values again (in clear) to change their URL.");
    }
    if (isSealedSecret(kept)) return kept;
    if (typeof kept === "string") return sealSecret(kept, box);
    const param = `checks.${index}.params.headers.${name}`;
    throw new GatewayError("invalid_request", `${param} is the mask of a stored header value, but none is stored there: send the value itself.`, { param });
  });
}

/**
 * The checks as they run: every sealed header value opened. A value that does not open
 * (altered, or sealed under another master key) fails with its place. Never throws.
 */
export function openCheckSecrets(checks: readonly GuardrailCheckSpec[], box: SecretBox): Result<GuardrailCheckSpec[], string> {
  let unopened: string | null = null;
  const opened = mapHeaders(checks, (value, name, index) => {
    if (!isSealedSecret(value)) return value;
    const plaintext = openSealedSecret(value, box);
    if (plaintext === null) unopened ??= `checks.${index}.params.headers.${name}`;
    return plaintext;
  });
  return unopened === null ? ok(opened) : fail(unopened);
}

/** The checks as routes show them: every header value masked. */
export function maskCheckSecrets(checks: readonly GuardrailCheckSpec[]): GuardrailCheckSpec[] {
  return mapHeaders(checks, () => MASKED_SECRET);
}

/** Whether any header value is stored in clear (a guardrail saved before headers were sealed). */
export function hasClearSecrets(checks: readonly GuardrailCheckSpec[]): boolean {
  return checks.some((check) => Object.values(headersOf(check) ?? {}).some((value) => typeof value === "string"));
}

/** Stored checks with every header value still in clear sealed, and sealed ones kept. */
export function sealClearSecrets(checks: readonly GuardrailCheckSpec[], box: SecretBox): GuardrailCheckSpec[] {
  return mapHeaders(checks, (value) => (typeof value === "string" ? sealSecret(value, box) : value));
}

/**
 * Every sealed header value of stored checks passed through `map` (re-sealing after a
 * master-key rotation, `control-plane/reseal-secrets.ts`); values in clear are kept as they are.
 */
export function mapSealedCheckSecrets(checks: readonly GuardrailCheckSpec[], map: (secret: SealedSecret) => SealedSecret): GuardrailCheckSpec[] {
  return mapHeaders(checks, (value) => (isSealedSecret(value) ? map(value) : value));
}
