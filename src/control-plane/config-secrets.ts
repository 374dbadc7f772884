import type { SecretBox } from "../deps.ts";
import type { GatewayConfig } from "../generated/schemas.gen.ts";

/**
 * Upstream keys inside stored configs (`api_key` at the root or in a target) are sealed at
 * rest like virtual keys, and shown masked by every route. Inline configs in a request header
 * are never stored, so they need none of this.
 */
const SEALED_PREFIX = "sealed:";
export const MASKED_API_KEY = "********";

type WithApiKey = { api_key?: string };

function mapApiKeys(config: GatewayConfig, map: (apiKey: string) => string): GatewayConfig {
  const mapOne = <T extends WithApiKey>(part: T): T => (part.api_key === undefined ? part : { ...part, api_key: map(part.api_key) });
  const mapped = mapOne(config);
  return mapped.targets ? { ...mapped, targets: mapped.targets.map(mapOne) } : mapped;
}

/** The config as stored: every `api_key` sealed. */
export function sealConfigSecrets(config: GatewayConfig, box: SecretBox): GatewayConfig {
  return mapApiKeys(config, (apiKey) => (apiKey.startsWith(SEALED_PREFIX) ? apiKey : `${SEALED_PREFIX}${box.seal(apiKey)}`));
}

/** The config as the request path uses it: every sealed `api_key` opened. Throws on a tampered value. */
export function openConfigSecrets(config: GatewayConfig, box: SecretBox): GatewayConfig {
  return mapApiKeys(config, (apiKey) => (apiKey.startsWith(SEALED_PREFIX) ? box.open(apiKey.slice(SEALED_PREFIX.length)) : apiKey));
}

/** The stored config text as routes show it: every `api_key` masked. */
export function maskConfigSecrets(text: string): string {
  let config: GatewayConfig;
  try {
    config = JSON.parse(text) as GatewayConfig;
  } catch {
    return text;
  }
  if (!text.includes('"api_key"')) return text;
  return JSON.stringify(mapApiKeys(config, () => MASKED_API_KEY));
}
