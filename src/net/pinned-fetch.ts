/**
 * The fetch of every outbound call to a host a request can name (providers, custom hosts,
 * guardrail webhooks): each connection goes only to an address the SSRF guard checked, so a
 * name that answers a public address to the check and a private one at connect time (DNS
 * rebinding) never reaches the private one. Mutual TLS is presented here too when configured.
 *
 * - Node: one undici `Agent` for every upstream whose `connect.lookup` asks the guard at each
 *   new connection (`pinnedLookup`); kept-alive connections were opened to a checked address.
 *   It reads answer headers up to `UPSTREAM_HEADER_BLOCK_BYTES`, as Bun's fetch does (Node's
 *   default of 16 KiB would fail a call over one large cookie).
 * - Bun: `fetch` takes no dispatcher or lookup, so a pinned name is dialled by its checked IP
 *   literal, with the original `Host` header and, over https, `tls.serverName` set to the name:
 *   SNI and certificate verification stay on the real name (Bun verifies against `serverName`).
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import type { GatewayError, Result } from "../errors.ts";
import type { FetchLike } from "./upstream-call.ts";
import type { UpstreamTls } from "./upstream-tls.ts";
import { UPSTREAM_HEADER_BLOCK_BYTES } from "./header-rules.ts";

/** What the fetch asks before a connection: `CustomHostGuard.addressesForConnect`. */
export interface ConnectPin {
  addressesForConnect(hostname: string): Promise<Result<readonly string[] | null, GatewayError>>;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** Origins remembered as not pinned (Bun); past this many, further ones are asked each time. */
const MAX_UNPINNED_ORIGINS = 1000;

const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined";
const isDeno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";

function familyOf(address: string): 4 | 6 {
  return address.includes(":") ? 6 : 4;
}

/**
 * A `net.connect` lookup that answers only the guard's addresses for a pinned name, and the
 * system's answer otherwise. A refusal is handed to the connection as its error (undici then
 * rejects the fetch with it as `cause`, which `callUpstream` answers as it is).
 */
export function pinnedLookup(pin: ConnectPin): (hostname: string, options: LookupOptions, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    void pin.addressesForConnect(hostname).then((pinned) => {
      if (!pinned.ok) return callback(pinned.error as unknown as NodeJS.ErrnoException, "", 0);
      if (pinned.value === null) return dnsLookup(hostname, options, callback);
      const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : options.family;
      const entries = pinned.value.filter((address) => !family || familyOf(address) === family).map((address) => ({ address, family: familyOf(address) }));
      const first = entries[0];
      if (!first) return callback(Object.assign(new Error(`No checked IPv${String(family)} address for ${hostname}.`), { code: "ENOTFOUND" }), "", 0);
      if (options.all) return callback(null, entries);
      return callback(null, first.address, first.family);
    }, (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), "", 0));
  };
}

/** Where Bun dials: the URL with the host replaced by a checked address, the `Host` to send, and the TLS options. */
export interface BunTarget {
  url: string;
  /** The original `host[:port]`, for the `Host` header; null when the URL is dialled as it is. */
  host: string | null;
  /** mTLS options and, over TLS to a pinned name, `serverName`: SNI and certificate checks use the name, not the IP. */
  tls: (Partial<UpstreamTls> & { serverName?: string }) | null;
}

/**
 * Bun's fetch and WebSocket take no lookup: a pinned name is dialled at its first checked address
 * (IPv4 first) by IP literal. Only that one address is tried: a body streamed as it arrives
 * could not be sent twice.
 */
export function bunPinnedTarget(input: string, addresses: readonly string[] | null, tls: UpstreamTls | null): BunTarget {
  const address = addresses?.[0];
  if (address === undefined) return { url: input, host: null, tls: tls && { ...tls } };
  const url = new URL(input);
  const host = url.host;
  const serverName = url.hostname;
  url.hostname = familyOf(address) === 6 ? `[${address}]` : address;
  const secure = url.protocol === "https:" || url.protocol === "wss:";
  return { url: url.href, host, tls: secure ? { ...tls, serverName } : tls && { ...tls } };
}

/** The `scheme://authority` an absolute URL starts with: the key of the unpinned-origin cache, found without parsing. */
function originOf(input: string): string {
  const end = input.indexOf("/", input.indexOf("//") + 2);
  return end === -1 ? input : input.slice(0, end);
}

/**
 * Bun's fetch, pinned. The guard answers "not pinned" (null) by its rules alone (IP literal,
 * trusted, exempt, localhost), never by DNS, so such origins are remembered and later requests
 * to them go straight to `fetch`, with no parsing or waiting on the hot path.
 */
function bunFetch(pin: ConnectPin, tls: UpstreamTls | null): FetchLike {
  const unpinned = new Set<string>();
  const tlsInit = tls ? { tls: { ...tls } } : {};
  return async (input, init) => {
    const origin = originOf(input);
    if (unpinned.has(origin)) return fetch(input, { ...init, ...tlsInit } as RequestInit);
    const pinned = await pin.addressesForConnect(new URL(input).hostname);
    if (!pinned.ok) throw pinned.error;
    if (pinned.value === null && unpinned.size < MAX_UNPINNED_ORIGINS) unpinned.add(origin);
    return bunPinned(input, init, pinned.value, tls);
  };
}

function bunPinned(input: string, init: RequestInit, addresses: readonly string[] | null, tls: UpstreamTls | null): Promise<Response> {
  const target = bunPinnedTarget(input, addresses, tls);
  let headers = init.headers;
  if (target.host !== null) {
    headers = new Headers(init.headers);
    headers.set("host", target.host);
  }
  return fetch(target.url, { ...init, headers, ...(target.tls ? { tls: target.tls } : {}) } as RequestInit);
}

/**
 * The fetch of every upstream call and guardrail webhook, pinned by `pin` and presenting the
 * client certificate when mTLS is on. Rejects (never resolves) when the guard refuses the host.
 */
export async function upstreamFetch(tls: UpstreamTls | null, pin: ConnectPin): Promise<FetchLike> {
  if (isBun) return bunFetch(pin, tls);
  // Loaded only under Node and Deno (Bun's fetch takes no dispatcher). Deno's own fetch ignores a
  // dispatcher, and with it the pinned addresses and the client certificate: there undici's
  // fetch makes the call.
  const { Agent, fetch: undiciFetch } = await import("undici");
  const dispatcher = new Agent({ connect: { ...tls, lookup: pinnedLookup(pin) }, maxHeaderSize: UPSTREAM_HEADER_BLOCK_BYTES });
  const call = isDeno ? (undiciFetch as unknown as typeof fetch) : fetch;
  return (input, init) => call(input, { ...init, dispatcher } as RequestInit);
}
