/**
 * An upstream may echo the credentials it was sent in its error (a custom host that prints the
 * request, a proxy that quotes the `Authorization` header, a URL with Gemini's `key=` in a
 * message). Before an error answer's text reaches the client or the log, every credential the
 * gateway sent on that attempt is replaced by `[redacted]`. Only error answers are scrubbed:
 * the success path never pays for it.
 */

export const REDACTED = "[redacted]";

/** Header names whose values are credentials (lower case, as `fetch` sends them). */
const CREDENTIAL_HEADER = /(^|-)(authorization|api-key|key|token|secret|signature|credential)s?$|^x-goog-api-key$|^x-amz-security-token$/;
/** Query parameters that carry credentials (Gemini's `key`, signed URLs). */
const CREDENTIAL_QUERY = /^(key|api[-_]?key|access[-_]?token|token|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token)$/i;
/** Shorter pieces are not scrubbed: they would mangle ordinary words and cannot be secrets worth the name. */
const MIN_SECRET_CHARS = 8;

/** The request as sent: its URL and headers. */
export interface SentRequest {
  url: string;
  headers: Readonly<Record<string, string>> | Headers;
}

function headerEntries(headers: SentRequest["headers"]): Array<[string, string]> {
  if (headers instanceof Headers) return [...headers.entries()];
  return Object.entries(headers);
}

/**
 * The secret strings of a sent request, longest first: each credential header's value, its
 * parts after a scheme (`Bearer sk-…`, AWS SigV4's `Credential=AKIA…/…` and `Signature=…`),
 * the decoded `user:password` of Basic auth, and credential query values; each also as it
 * appears URL-encoded. Never throws.
 */
export function sentSecrets(request: SentRequest): string[] {
  const found = new Set<string>();
  const add = (value: string): void => {
    if (value.length < MIN_SECRET_CHARS) return;
    found.add(value);
    const encoded = encodeURIComponent(value);
    if (encoded !== value) found.add(encoded);
  };
  for (const [name, value] of headerEntries(request.headers)) {
    if (!CREDENTIAL_HEADER.test(name.toLowerCase())) continue;
    const whole = value.trim();
    add(whole);
    // After a scheme word (`Bearer`, `AWS4-HMAC-SHA256`): the token itself, and long pieces
    // of a structured value (an access key id, a signature), not its short field names.
    const scheme = /^\S+\s+(.+)$/.exec(whole);
    if (scheme?.[1]) {
      add(scheme[1]);
      for (const part of scheme[1].split(/[\s,;=/]+/)) if (part.length >= 16) add(part);
    }
    const basic = /^basic\s+(\S+)$/i.exec(value.trim());
    if (basic?.[1]) {
      const decoded = Buffer.from(basic[1], "base64").toString("utf8");
      add(decoded);
      for (const part of decoded.split(":")) add(part);
    }
  }
  // Both as written in the URL and decoded: an upstream may quote either.
  const query = request.url.includes("?") ? request.url.slice(request.url.indexOf("?") + 1).split("#")[0]! : "";
  for (const pair of query.split("&")) {
    const [name = "", raw = ""] = pair.split(/=(.*)/s);
    if (!CREDENTIAL_QUERY.test(safeDecode(name))) continue;
    add(raw);
    add(safeDecode(raw.replace(/\+/g, " ")));
  }
  return [...found].sort((a, b) => b.length - a.length);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `text` with every occurrence of each secret replaced by `[redacted]`. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let scrubbed = text;
  for (const secret of secrets) if (scrubbed.includes(secret)) scrubbed = scrubbed.split(secret).join(REDACTED);
  return scrubbed;
}

/** A scrubber for one sent request; it finds the secrets only when first used. */
export function credentialScrubber(request: SentRequest): (text: string) => string {
  let secrets: string[] | null = null;
  return (text) => {
    secrets ??= sentSecrets(request);
    return secrets.length === 0 ? text : scrubJson(scrubSecrets(text, secrets), secrets);
  };
}

/**
 * A JSON text with escapes (`\/`, `\u0041`) may hold a secret only its parsed strings show,
 * and the gateway parses an error body to build its own message: such a text is parsed,
 * scrubbed string by string and written again. Other texts are returned as they are.
 */
function scrubJson(text: string, secrets: readonly string[]): string {
  if (!text.includes("\\")) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  let found = false;
  const walk = (value: unknown): unknown => {
    if (typeof value === "string") {
      const scrubbed = scrubSecrets(value, secrets);
      if (scrubbed !== value) found = true;
      return scrubbed;
    }
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [walk(key) as string, walk(item)]));
    return value;
  };
  const scrubbed = walk(parsed);
  return found ? JSON.stringify(scrubbed) : text;
}
