/**
 * The SSRF guard for `x-gateway-custom-host`, stored custom hosts and guardrail webhooks: which
 * base URLs a caller may send the gateway's requests to, and, when a connection is opened, which
 * addresses it may go to (`addressesForConnect`, used by `pinned-fetch.ts`), so a name that
 * answers differently by then (DNS rebinding) reaches only an address that was checked.
 */
import { lookup as systemLookup } from "node:dns/promises";
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import { classify, ipLiteral, parseAddress, parseTrustedEntry, withoutTrailingDot } from "./host-rules.ts";

export interface CustomHostGuardOptions {
  /** Hosts allowed whatever they resolve to: lowercase hostnames or IP literals, optionally `host:port`. */
  trustedHosts: readonly string[];
  /** Resolves a hostname to all its addresses; defaults to the system resolver (`node:dns/promises` lookup). */
  lookup?: (hostname: string) => Promise<string[]>;
  /** How long a hostname's verdict is kept; default 60 s. */
  cacheTtlMs?: number;
  /**
   * Also allow hosts that are not listed when they are (and resolve only to) public
   * addresses. Off by default: then only loopback and listed hosts pass.
   */
  allowPublicHosts?: boolean;
  /** Allow loopback (127.0.0.0/8, ::1, `localhost`, names resolving there); default true (a local model server). */
  trustLoopback?: boolean;
  /**
   * Host names whose DNS the gateway trusts as configuration (the built-in providers' hosts):
   * connections to them resolve as the system does, unpinned, so private endpoints of a cloud
   * provider keep working. Lowercase, no trailing dot.
   */
  exemptHost?: (hostname: string) => boolean;
}

/** The guard's check alone (`CustomHostGuard.check`): what admin writes and guardrail webhooks are given. */
export type CheckCustomHost = CustomHostGuard["check"];

export interface CustomHostGuard {
  /**
   * Checks a custom base URL and returns it parsed. Failures:
   * `invalid_request` (400) when it is not a URL at all; `forbidden_custom_host` (400) when it
   * is not an absolute `http:`/`https:` URL, carries credentials, or names or resolves to a
   * non-public address; `upstream_unreachable` (502) when its hostname cannot be resolved, so
   * it cannot be verified. Messages never echo the URL's credentials, path or query. Never throws.
   * The URL may be shared with other callers that checked the same text: read it, never change it.
   * `field` is where the URL came from (default `x-gateway-custom-host`, or a body field such as
   * `custom_host`): errors name it in their message and as `param`.
   */
  check(rawUrl: string, field?: string): Promise<Result<Readonly<URL>, GatewayError>>;
  /**
   * Where a connection to `hostname` may go, asked when it is opened: null when the name is not
   * pinned (an IP literal, a trusted or exempt host, `localhost`) and resolves as the system
   * does; otherwise the addresses that passed the check (the cached verdict's, so no DNS query
   * while it lives; a fresh, checked answer after). Refusals are the check's: `forbidden_custom_host`
   * for a name that is not allowed or resolves to a non-public address, `upstream_unreachable` when
   * it cannot be resolved. Never throws.
   */
  addressesForConnect(hostname: string): Promise<Result<readonly string[] | null, GatewayError>>;
}

const PARAM = "x-gateway-custom-host";
const MAX_CACHED_HOSTS = 1000;
const DEFAULT_TTL_MS = 60_000;
type Verdict = { kind: "allowed"; addresses: readonly string[] } | { kind: "forbidden"; message: string } | { kind: "unresolved"; message: string };

function shown(text: string): string {
  return text.length > 255 ? `${text.slice(0, 255)}…` : text;
}

function notListed(hostname: string): string {
  return `Custom host "${shown(hostname)}" is not trusted: list it in GATEWAY_TRUSTED_CUSTOM_HOSTS.`;
}

function forbidden(message: string, field: string): GatewayError {
  return new GatewayError("forbidden_custom_host", message, { param: field });
}

async function defaultLookup(hostname: string): Promise<string[]> {
  const answers = await systemLookup(hostname, { all: true });
  return answers.map((answer) => answer.address);
}

function verdictFor(hostname: string, answers: readonly string[], trustLoopback: boolean): Verdict {
  if (answers.length === 0) return { kind: "unresolved", message: `Could not resolve custom host "${shown(hostname)}": no addresses.` };
  for (const answer of answers) {
    const address = parseAddress(answer);
    const range = address ? classify(address) : "unrecognised";
    if (range !== "public" && !(range === "loopback" && trustLoopback)) {
      return { kind: "forbidden", message: `Custom host "${shown(hostname)}" resolves to a non-public address.` };
    }
  }
  // IPv4 first: a runtime that dials one address (Bun) takes the first.
  const addresses = [...answers].sort((a, b) => Number(a.includes(":")) - Number(b.includes(":")));
  return { kind: "allowed", addresses };
}

/**
 * Creates the custom-host guard. Rules, in order: the value must parse as a URL, use
 * `http:` or `https:`, and carry no username or password; a trusted host (matched on
 * hostname, or on hostname and effective port for `host:port` entries) and loopback
 * (127.0.0.0/8, ::1, `localhost`) are allowed; everything else is refused unless
 * `allowPublicHosts` is set, and then any other IP literal, and any hostname whose
 * DNS answers include one, must be public unicast: private, link-local (including the cloud
 * metadata address), CGNAT, unspecified, multicast, broadcast, reserved, unique-local,
 * NAT64/6to4/Teredo and IPv4-mapped forms of these are refused. Loopback is trusted on
 * purpose (a local model server) while private networks are not.
 *
 * Hostname verdicts, with the addresses checked, are cached for `cacheTtlMs` (at most 1000
 * hosts, oldest evicted); resolution failures are not cached. `addressesForConnect` gives a
 * connection those same addresses, so what was checked is what is dialled; the caller must
 * still refuse redirects. Throws only when `trustedHosts` has a malformed entry.
 */
export function createCustomHostGuard(options: CustomHostGuardOptions): CustomHostGuard {
  const trustedAnyPort = new Set<string>();
  const trustedWithPort = new Set<string>();
  for (const entry of options.trustedHosts) {
    if (entry.trim() === "") continue;
    const { host, port } = parseTrustedEntry(entry);
    if (port === null) trustedAnyPort.add(host);
    else trustedWithPort.add(`${host}:${port}`);
  }
  const allowPublicHosts = options.allowPublicHosts === true;
  const trustLoopback = options.trustLoopback !== false;
  const exemptHost = options.exemptHost ?? (() => false);
  // Connect time sees the name only, not the port: a `host:port` entry trusts the name there.
  const trustedNames = new Set([...trustedAnyPort, ...[...trustedWithPort].map((entry) => entry.slice(0, entry.lastIndexOf(":")))]);
  const lookup = options.lookup ?? defaultLookup;
  const ttlMs = options.cacheTtlMs ?? DEFAULT_TTL_MS;
  const cache = new Map<string, { verdict: Verdict; expiresAt: number }>();
  const inFlight = new Map<string, Promise<Verdict>>();
  // URLs allowed by the rules alone (no DNS): the answer never changes, so every request
  // naming the same custom host skips parsing and classifying it again.
  const allowedByRule = new Map<string, Result<Readonly<URL>, GatewayError>>();
  const allowByRule = (rawUrl: string, url: URL): Result<Readonly<URL>, GatewayError> => {
    const allowed = ok(url);
    if (allowedByRule.size < MAX_CACHED_HOSTS) allowedByRule.set(rawUrl, allowed);
    return allowed;
  };

  const remember = (hostname: string, verdict: Verdict): void => {
    if (verdict.kind === "unresolved" || ttlMs <= 0) return;
    cache.delete(hostname);
    cache.set(hostname, { verdict, expiresAt: Date.now() + ttlMs });
    if (cache.size > MAX_CACHED_HOSTS) {
      const oldest = cache.keys().next();
      if (!oldest.done) cache.delete(oldest.value);
    }
  };

  const resolve = async (hostname: string): Promise<Verdict> => {
    try {
      return verdictFor(hostname, await lookup(hostname), trustLoopback);
    } catch (error) {
      const code = error && typeof error === "object" && "code" in error && typeof error.code === "string" ? ` (${error.code})` : "";
      return { kind: "unresolved", message: `Could not resolve custom host "${shown(hostname)}"${code}.` };
    }
  };

  const hostVerdict = async (hostname: string): Promise<Verdict> => {
    const cached = cache.get(hostname);
    if (cached && cached.expiresAt > Date.now()) return cached.verdict;
    if (cached) cache.delete(hostname);
    let pending = inFlight.get(hostname);
    if (!pending) {
      pending = resolve(hostname).then((verdict) => {
        inFlight.delete(hostname);
        remember(hostname, verdict);
        return verdict;
      });
      inFlight.set(hostname, pending);
    }
    return pending;
  };

  return {
    async check(rawUrl: string, field = PARAM): Promise<Result<Readonly<URL>, GatewayError>> {
      const known = allowedByRule.get(rawUrl);
      if (known) return known;
      let url: URL;
      try {
        url = new URL(rawUrl);
      } catch {
        return fail(new GatewayError("invalid_request", `${field} must be an absolute http:// or https:// URL.`, { param: field }));
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        return fail(forbidden(`${field} must use http or https, not "${shown(url.protocol)}".`, field));
      }
      if (url.username !== "" || url.password !== "") {
        return fail(forbidden(`${field} must not contain a username or password.`, field));
      }
      const host = withoutTrailingDot(url.hostname);
      const port = url.port || (url.protocol === "https:" ? "443" : "80");
      if (trustedAnyPort.has(host) || trustedWithPort.has(`${host}:${port}`) || (host === "localhost" && trustLoopback)) return allowByRule(rawUrl, url);

      const literal = ipLiteral(url.hostname);
      if (literal) {
        const range = classify(literal);
        if ((range === "loopback" && trustLoopback) || (range === "public" && allowPublicHosts)) return allowByRule(rawUrl, url);
        if (range === "public") return fail(forbidden(notListed(url.hostname), field));
        return fail(forbidden(`Custom host "${shown(url.hostname)}" is a non-public address (${range}).`, field));
      }
      if (!allowPublicHosts) return fail(forbidden(notListed(url.hostname), field));

      const verdict = await hostVerdict(url.hostname);
      if (verdict.kind === "allowed") return ok(url);
      if (verdict.kind === "forbidden") return fail(forbidden(verdict.message, field));
      return fail(new GatewayError("upstream_unreachable", verdict.message, { param: field }));
    },

    async addressesForConnect(hostname: string): Promise<Result<readonly string[] | null, GatewayError>> {
      const name = withoutTrailingDot(hostname.toLowerCase());
      if (ipLiteral(name) || ipLiteral(`[${name}]`)) return ok(null);
      if (trustedNames.has(name) || exemptHost(name) || (name === "localhost" && trustLoopback)) return ok(null);
      // The same rule as the check: without public hosts, an unlisted name is never dialled.
      if (!allowPublicHosts) return fail(new GatewayError("forbidden_custom_host", notListed(hostname)));
      const verdict = await hostVerdict(hostname);
      if (verdict.kind === "allowed") return ok(verdict.addresses);
      if (verdict.kind === "forbidden") return fail(new GatewayError("forbidden_custom_host", verdict.message));
      return fail(new GatewayError("upstream_unreachable", verdict.message));
    },
  };
}
