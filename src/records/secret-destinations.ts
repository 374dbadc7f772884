import { GatewayError } from "../errors.ts";
import type { GatewayConfig } from "../generated/schemas.gen.ts";
import { findProvider } from "../providers/catalogue.ts";

/**
 * Changing where a stored secret goes requires sending the secret again. A caller who may
 * update a record but not read its secrets (they are shown masked) could otherwise keep the
 * secret and point it at a host of its own. These helpers tell where a kept secret goes
 * before and after an update; the seal functions refuse an update that moves a kept secret.
 */

/**
 * A URL as the gateway calls it: parsed, and without trailing slashes (the request path trims
 * them off a base URL). Text that does not parse is kept as it stands, so it compares only to
 * itself. Never throws.
 */
export function normalisedUrl(raw: string): string {
  try {
    return new URL(raw).href.replace(/\/+$/, "");
  } catch {
    return raw;
  }
}

/** Whether two stored URLs (absent: none) name the same destination. */
export function sameUrl(a: string | null | undefined, b: string | null | undefined): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  return normalisedUrl(a) === normalisedUrl(b);
}

/**
 * The 400 for an update that moves a kept secret: `param` names the field that moves it,
 * `stored` the kept secret ("the stored key config.api_key"), `resend` what to do instead.
 */
export function movedSecretError(param: string, stored: string, resend: string): GatewayError {
  return new GatewayError("invalid_request", `${param} would send ${stored} to a new destination: ${resend}`, { param });
}

/** What an update that moves a stored upstream key must do instead. */
export const RESEND_KEY = "send the key again (in clear) to change its host.";

/** Where a config key is sent, with the fields that decide it. */
interface Destination {
  /** The normalised base URL (custom host, else the provider's own), or a stand-in that compares equal only to itself. */
  url: string;
  /** Whether a custom host decides it. */
  hosted: boolean;
  hostParam: string;
  providerParam: string;
}

type ConfigShape = Pick<GatewayConfig, "provider" | "custom_host"> & {
  api_key?: unknown;
  targets?: Array<Pick<GatewayConfig, "provider" | "custom_host"> & { api_key?: unknown }>;
};

function destination(provider: string | undefined, host: string | undefined, hostParam: string, providerParam: string): Destination {
  const baseUrl = provider === undefined ? undefined : findProvider(provider)?.baseUrl;
  let url: string;
  if (host !== undefined) url = normalisedUrl(host);
  else if (baseUrl) url = normalisedUrl(baseUrl);
  else url = provider === undefined ? "(the provider the request names)" : `(provider ${provider} without a base URL)`;
  return { url, hosted: host !== undefined, hostParam, providerParam };
}

/** Where the root of `config` sends a key. */
function rootDestination(config: ConfigShape, param: string): Destination {
  return destination(config.provider, config.custom_host, `${param}.custom_host`, `${param}.provider`);
}

/** Where target `index` of `config` sends a key: its own provider and host, else the root's. Null when there is no such target. */
function targetDestination(config: ConfigShape, index: number, param: string): Destination | null {
  const target = config.targets?.[index];
  if (!target) return null;
  const own = `${param}.targets.${index}`;
  return destination(
    target.provider ?? config.provider,
    target.custom_host ?? config.custom_host,
    target.custom_host !== undefined ? `${own}.custom_host` : `${param}.custom_host`,
    target.provider !== undefined ? `${own}.provider` : `${param}.provider`,
  );
}

interface Place {
  /** The target (null: the root) that sends the key there. */
  at: number | null;
  to: Destination;
}

/**
 * Every place the key stored at the root (`index` null) or in target `index` is sent to: a
 * target's key goes to that target; the root's key goes to the root and to every target
 * without a key of its own.
 */
function keyDestinations(config: ConfigShape, index: number | null, param: string): Place[] {
  if (index !== null) {
    const to = targetDestination(config, index, param);
    return to ? [{ at: index, to }] : [];
  }
  const places: Place[] = [{ at: null, to: rootDestination(config, param) }];
  (config.targets ?? []).forEach((target, at) => {
    const to = targetDestination(config, at, param);
    if (target.api_key === undefined && to) places.push({ at, to });
  });
  return places;
}

/**
 * The 400 for a key kept (sent masked) at the root (`index` null) or in target `index` when
 * `next` sends it anywhere `previous` did not; null when every destination was already one.
 * Names the custom host that moves it, or the provider when only the provider changed.
 */
export function movedConfigKey(next: ConfigShape, previous: ConfigShape, index: number | null, param = "config"): GatewayError | null {
  const before = keyDestinations(previous, index, param);
  for (const { at, to } of keyDestinations(next, index, param)) {
    if (before.some((known) => known.to.url === to.url)) continue;
    const counterpart = at === null ? rootDestination(previous, param) : targetDestination(previous, at, param);
    const byHost = to.hosted || (counterpart?.hosted ?? false);
    const keyParam = index === null ? `${param}.api_key` : `${param}.targets.${index}.api_key`;
    return movedSecretError(byHost ? to.hostParam : to.providerParam, `the stored key ${keyParam}`, RESEND_KEY);
  }
  return null;
}
