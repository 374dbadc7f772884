/**
 * Which headers cross the gateway, in each direction. A header crosses when a rule allows it by
 * name or prefix and no deny rule names it; everything else stays behind. Every provider call
 * uses these two rules: the client's headers on their way upstream (`forwardedRequestHeaders`)
 * and the upstream's on their way back (`passedOnHeaders`). Names are lower case.
 */

/** Names and name prefixes a rule matches. */
export interface HeaderMatch {
  names: readonly string[];
  prefixes: readonly string[];
}

export interface HeaderRule {
  allow: HeaderMatch;
  deny: HeaderMatch;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) and framing the HTTP client sets itself: never relayed either way. */
const CONNECTION_HEADERS = ["connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host", "content-length"];

/**
 * Client → upstream. The upstream's own request headers that carry meaning for it: idempotency
 * keys and client request ids (retries and support tickets), `User-Agent` (the gateway's name is
 * appended), `Accept`, OpenAI's beta opt-ins. The gateway's own headers, credentials (the
 * gateway supplies the upstream's) and cookies never go; `OpenAI-Organization` and
 * `OpenAI-Project` are read as the target's organisation and project, and the provider sends them.
 */
export const CLIENT_TO_UPSTREAM: HeaderRule = {
  allow: { names: ["accept", "user-agent", "idempotency-key", "x-client-request-id", "openai-beta"], prefixes: [] },
  deny: {
    names: [...CONNECTION_HEADERS, "authorization", "cookie", "x-api-key", "api-key", "x-goog-api-key", "openai-organization", "openai-project"],
    prefixes: ["x-gateway-"],
  },
};

/**
 * Upstream → client. What clients read from an answer: request ids (OpenAI's `x-request-id`,
 * Anthropic's `request-id`, Bedrock's, Azure's), processing time and API version, and every
 * provider's rate-limit and retry headers. Cookies, framing and anything named like the
 * gateway's own headers (an upstream that is itself a gateway) never come back.
 */
export const UPSTREAM_TO_CLIENT: HeaderRule = {
  allow: {
    names: ["x-request-id", "request-id", "x-amzn-requestid", "apim-request-id", "openai-processing-ms", "openai-version", "retry-after", "retry-after-ms"],
    prefixes: ["x-ratelimit-", "anthropic-ratelimit-"],
  },
  deny: { names: [...CONNECTION_HEADERS, "set-cookie", "set-cookie2", "content-encoding"], prefixes: ["x-gateway-"] },
};

/**
 * Forwarded headers that can change what the upstream answers, and so belong in a cache key;
 * ids and the user agent do not.
 */
const ANSWER_SHAPING: ReadonlySet<string> = new Set(["accept", "openai-beta"]);

/** Appended to the client's `User-Agent` upstream, so the upstream sees the request came through a gateway. */
export const GATEWAY_USER_AGENT = "ai-gateway/0.1.0";

function matches(match: HeaderMatch, name: string): boolean {
  return match.names.includes(name) || match.prefixes.some((prefix) => name.startsWith(prefix));
}

/** Whether a header (any case) crosses under `rule`. */
export function crosses(rule: HeaderRule, name: string): boolean {
  const lower = name.toLowerCase();
  return matches(rule.allow, lower) && !matches(rule.deny, lower);
}

function crossing(rule: HeaderRule, headers: Headers): Record<string, string> {
  const passed: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (crosses(rule, name)) passed[name] = value;
  });
  return passed;
}

/**
 * The client's headers the upstream gets, lower-cased, with the gateway's name appended to the
 * user agent. The provider's `authorize` still sets its own credentials over these. Never throws.
 */
export function forwardedRequestHeaders(headers: Headers): Record<string, string> {
  const forwarded = crossing(CLIENT_TO_UPSTREAM, headers);
  forwarded["user-agent"] = forwarded["user-agent"] ? `${forwarded["user-agent"]} ${GATEWAY_USER_AGENT}` : GATEWAY_USER_AGENT;
  return forwarded;
}

/**
 * What an upstream may pass back through the gateway: ids, times and limits are short, so a
 * longer value is dropped (cut, a limit or id would mislead), and the headers matched by prefix
 * (rate limits) are bounded in number, so an upstream cannot make every answer carry megabytes.
 * What passes is at most about 10 KB, within any HTTP client's limit on the way to the client.
 */
export const PASSED_ON_LIMITS = { valueLength: 256, prefixed: 32 };

/**
 * The most an upstream answer's header block may hold (names and values together), as the
 * gateway reads it: Bun's fetch stops at about 1 MiB, and the Node dispatcher is given the same,
 * so that an oversized header (a 100 KB cookie) is read and dropped rather than failing the call.
 */
export const UPSTREAM_HEADER_BLOCK_BYTES = 1024 * 1024;

/**
 * A header the gateway never passes on is named in the log's note only from this length: such
 * headers are dropped anyway, and only an unusually large one tells the operator something.
 */
const NOTED_UNPASSED_LENGTH = 8 * 1024;

/** At most this many dropped headers are named in a note; the rest are counted. */
const NOTED_NAMES = 5;

/** The upstream's answer headers the client gets with successes, errors and streams alike, within `PASSED_ON_LIMITS`. Never throws. */
export function passedOnHeaders(headers: Headers): Record<string, string> {
  const passed: Record<string, string> = {};
  let prefixed = 0;
  headers.forEach((value, name) => {
    if (value.length > PASSED_ON_LIMITS.valueLength || !crosses(UPSTREAM_TO_CLIENT, name)) return;
    if (!UPSTREAM_TO_CLIENT.allow.names.includes(name)) {
      if (prefixed === PASSED_ON_LIMITS.prefixed) return;
      prefixed += 1;
    }
    passed[name] = value;
  });
  return passed;
}

/**
 * Why an answer's headers were dropped for their size, for the attempt's log note: a header the
 * client would get but whose value is longer than `PASSED_ON_LIMITS.valueLength`, one never
 * passed on but over 8 KiB, and prefixed headers past `PASSED_ON_LIMITS.prefixed`. Null when
 * none was (an answer with ordinary headers costs one pass over them). Never throws.
 */
export function droppedHeadersNote(headers: Headers): string | null {
  const dropped: string[] = [];
  let prefixed = 0;
  headers.forEach((value, name) => {
    const passes = crosses(UPSTREAM_TO_CLIENT, name);
    if (passes && value.length <= PASSED_ON_LIMITS.valueLength) {
      if (!UPSTREAM_TO_CLIENT.allow.names.includes(name)) prefixed += 1;
      return;
    }
    if (passes) dropped.push(`${name} (${value.length} characters, over the ${PASSED_ON_LIMITS.valueLength} a passed-on value may have)`);
    else if (value.length > NOTED_UNPASSED_LENGTH) dropped.push(`${name} (${value.length} characters, a header never passed on)`);
  });
  const pastCount = Math.max(0, prefixed - PASSED_ON_LIMITS.prefixed);
  if (dropped.length === 0 && pastCount === 0) return null;
  const named = dropped.slice(0, NOTED_NAMES);
  if (dropped.length > NOTED_NAMES) named.push(`${dropped.length - NOTED_NAMES} more`);
  if (pastCount > 0) named.push(`${pastCount} rate-limit headers past the ${PASSED_ON_LIMITS.prefixed} passed on`);
  return `Upstream answer headers dropped: ${named.join("; ")}.`;
}

/** The forwarded headers that change the answer (`Accept`, `OpenAI-Beta`): what a cache key holds of them. */
export function answerShapingHeaders(forwarded: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(forwarded).filter(([name]) => ANSWER_SHAPING.has(name.toLowerCase())));
}
