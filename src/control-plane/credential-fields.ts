/**
 * A virtual key's provider credential fields (`Provider.credentialFields`): checked against
 * the provider's declaration at save, secret ones sealed like the key, shown masked.
 */
import type { SecretBox } from "../crypto/secret-box.ts";
import { GatewayError } from "../errors.ts";
import { isSealedSecret, MASKED_SECRET, openSealedSecret, sealSecret } from "../crypto/sealed-secret.ts";
import type { Provider } from "../providers/provider.ts";
import type { StoredCredentialFields } from "../records/control-plane.ts";

/**
 * The fields to store for `given`: each must be one the provider declares and match its
 * pattern (400 naming `fields.<name>`, never echoing the value); secret ones are sealed, and
 * `********` keeps the value stored in `current` (400 when there is none).
 */
export function storedCredentialFields(
  provider: Provider,
  given: Readonly<Record<string, string>>,
  current: StoredCredentialFields,
  secrets: SecretBox,
): StoredCredentialFields {
  const declared = new Map((provider.credentialFields ?? []).map((field) => [field.name, field]));
  const stored: Record<string, StoredCredentialFields[string]> = {};
  for (const [name, raw] of Object.entries(given)) {
    const field = declared.get(name);
    const param = `fields.${name}`;
    if (!field) {
      const known = [...declared.keys()];
      const hint = known.length > 0 ? `: it takes ${known.join(", ")}` : ": it takes none";
      throw new GatewayError("invalid_request", `Provider "${provider.id}" has no credential field "${name.slice(0, 100)}"${hint}.`, { param });
    }
    if (field.secret && raw === MASKED_SECRET) {
      const kept = current[name];
      if (kept === undefined) throw new GatewayError("invalid_request", `${param} is masked, but no value is stored to keep: send the value.`, { param });
      stored[name] = kept;
      continue;
    }
    const value = raw.trim();
    if (!field.pattern.test(value)) throw new GatewayError("invalid_request", `${param} is not a valid ${field.description}.`, { param });
    stored[name] = field.secret ? sealSecret(value, secrets) : value;
  }
  return stored;
}

/** True when the fields hold a secret: they authorise alone, so no key is needed. */
export function holdsSecretField(fields: StoredCredentialFields): boolean {
  return Object.values(fields).some(isSealedSecret);
}

/** The fields as a view shows them: secrets as `********`. */
export function credentialFieldsView(fields: StoredCredentialFields): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, isSealedSecret(value) ? MASKED_SECRET : value]));
}

/** The fields in plain text for one request; null when a secret does not open (altered, or another master key). Never throws. */
export function openCredentialFields(fields: StoredCredentialFields, secrets: SecretBox): Record<string, string> | null {
  const open: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (!isSealedSecret(value)) {
      open[name] = value;
      continue;
    }
    const plain = openSealedSecret(value, secrets);
    if (plain === null) return null;
    open[name] = plain;
  }
  return open;
}
