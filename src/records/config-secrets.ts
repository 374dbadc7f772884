import type { SecretBox } from "../crypto/secret-box.ts";
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { ConfigTarget, GatewayConfig } from "../generated/schemas.gen.ts";
import { movedConfigKey } from "./secret-destinations.ts";
import { isSealedSecret, MASKED_SECRET, openSealedSecret, sealSecret, type SealedSecret } from "../crypto/sealed-secret.ts";

/**
 * Upstream keys inside stored configs (`api_key` at the root or in a target) are sealed at
 * rest like virtual keys (`crypto/sealed-secret.ts`), and shown masked by every route. An
 * update that sends the mask back keeps the key stored at that place. Inline configs in a
 * request header are never stored, so they need none of this.
 */
export const MASKED_API_KEY = MASKED_SECRET;

type Stored<T> = Omit<T, "api_key"> & { api_key?: string | SealedSecret };

/**
 * A config as stored. Its keys are sealed; a plain string can only be in a version written
 * before keys were told apart by structure (a key whose own text began with `sealed:`): it is
 * used as it stands until the config is next saved.
 */
export type StoredConfig = Stored<Omit<GatewayConfig, "targets">> & { targets?: Stored<ConfigTarget>[] };

/** Where an `api_key` sits: `["api_key"]` or `["targets", 1, "api_key"]`. */
type KeyPath = readonly [ "api_key" ] | readonly ["targets", number, "api_key"];

type Loose = Record<string, unknown> & { api_key?: unknown; targets?: unknown };

function mapApiKeys(config: Loose, map: (apiKey: unknown, path: KeyPath) => unknown): Loose {
  const mapOne = (part: Loose, path: KeyPath): Loose => (part.api_key === undefined ? part : { ...part, api_key: map(part.api_key, path) });
  const mapped = mapOne(config, ["api_key"]);
  if (!Array.isArray(mapped.targets)) return mapped;
  return { ...mapped, targets: mapped.targets.map((target: Loose, index) => mapOne(target, ["targets", index, "api_key"])) };
}

function apiKeyAt(config: Loose | null, path: KeyPath): unknown {
  if (!config) return undefined;
  if (path.length === 1) return config.api_key;
  const target = Array.isArray(config.targets) ? (config.targets[path[1]] as Loose | undefined) : undefined;
  return target?.api_key;
}

/**
 * The config as stored: every `api_key` string sealed, whatever its text. The mask
 * (`********`) keeps the key `previous` (the stored version being replaced) holds at the same
 * place; with none there it is a 400 naming the field under `param`. A kept key goes only where
 * it went before: a custom host or provider that sends it anywhere else is a 400 naming that
 * field (`config.targets.0.custom_host`), since changing where a key goes takes the key itself.
 * Throws only GatewayError.
 */
export function sealConfigSecrets(config: GatewayConfig, box: SecretBox, previous: StoredConfig | null = null, param = "config"): StoredConfig {
  return mapApiKeys(config, (apiKey, path) => {
    if (apiKey !== MASKED_API_KEY) return sealSecret(String(apiKey), box);
    const kept = apiKeyAt(previous as Loose | null, path);
    if (previous && (isSealedSecret(kept) || typeof kept === "string")) {
      const moved = movedConfigKey(config, previous, path.length === 1 ? null : path[1], param);
      if (moved) throw moved;
    }
    if (isSealedSecret(kept)) return kept;
    if (typeof kept === "string") return sealSecret(kept, box);
    const field = [param, ...path].join(".");
    throw new GatewayError("invalid_request", `${field} is the mask of a stored key, but no key is stored there: send the key itself.`, { param: field });
  }) as StoredConfig;
}

/**
 * The config as the request path uses it: every sealed `api_key` opened (kept in memory only).
 * A key that does not open (altered, or sealed under another master key) fails with its place,
 * e.g. `targets.0.api_key`. Never throws.
 */
export function openConfigSecrets(config: StoredConfig, box: SecretBox): Result<GatewayConfig, string> {
  let unopened: string | null = null;
  const opened = mapApiKeys(config, (apiKey, path) => {
    if (!isSealedSecret(apiKey)) return apiKey;
    const plaintext = openSealedSecret(apiKey, box);
    if (plaintext === null) unopened ??= path.join(".");
    return plaintext;
  });
  return unopened === null ? ok(opened as GatewayConfig) : fail(unopened);
}

/** The stored config text as routes show it: every `api_key` masked. */
export function maskConfigSecrets(text: string): string {
  if (!text.includes('"api_key"')) return text;
  let config: Loose;
  try {
    config = JSON.parse(text) as Loose;
  } catch {
    return text;
  }
  return JSON.stringify(mapApiKeys(config, () => MASKED_API_KEY));
}

/**
 * Every sealed `api_key` of a stored config passed through `map` (re-sealing after a master-key
 * rotation, `control-plane/reseal-secrets.ts`); other values are kept as they are.
 */
export function mapSealedConfigSecrets(config: StoredConfig, map: (secret: SealedSecret) => SealedSecret): StoredConfig {
  return mapApiKeys(config as Loose, (apiKey) => (isSealedSecret(apiKey) ? map(apiKey) : apiKey)) as StoredConfig;
}
