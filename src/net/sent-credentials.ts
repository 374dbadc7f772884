/**
 * An upstream may echo the credentials it was sent in its error (a custom host that prints the
 * request, a proxy that quotes the `Authorization` header, a URL with Gemini's `key=` in a
 * message). Before an error answer's text (or an error event of a stream) reaches the client or
 * the log, every credential the gateway sent on that attempt is replaced by `[redacted]`,
 * wherever the text carries it: as sent, URL-encoded (`%XX`, either case, any character), and
 * JSON-escaped (`\"`, `\\`, `\/`, `\n`…, `\uXXXX` of any character, in JSON nested up to four
 * deep). Only error answers are scrubbed: the success path never pays for it.
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
 * the decoded `user:password` of Basic auth, and credential query values (as written and
 * decoded). Never throws.
 */
export function sentSecrets(request: SentRequest): string[] {
  const found = new Set<string>();
  const add = (value: string): void => {
    if (value.length >= MIN_SECRET_CHARS) found.add(value);
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

/** `text` with every occurrence of each secret, as it stands, replaced by `[redacted]`. */
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
    return secrets.length === 0 ? text : scrubEncoded(text, secrets);
  };
}

/** How many decodings deep a secret is looked for (JSON in JSON in a URL-encoded value…). */
const MAX_DECODINGS = 4;

/**
 * `text` with every secret replaced, found in the text as it stands and in each view of it that
 * decoding JSON escapes or URL escapes gives (each in turn, up to `MAX_DECODINGS` deep). A view
 * keeps, for each of its characters, the span of the text it came from; a secret found in a
 * view redacts those spans of the text, whole escapes included, so the text keeps its syntax.
 * Linear in the text per view: no pattern that could backtrack on hostile input.
 */
export function scrubEncoded(text: string, secrets: readonly string[]): string {
  const spans: [number, number][] = [];
  let views: View[] = [identityView(text)];
  const seen = new Set<string>([text]);
  for (let depth = 0; depth <= MAX_DECODINGS && views.length > 0; depth++) {
    const next: View[] = [];
    for (const view of views) {
      for (const secret of secrets) {
        for (let at = view.text.indexOf(secret); at !== -1; at = view.text.indexOf(secret, at + secret.length)) {
          spans.push([view.starts[at]!, view.ends[at + secret.length - 1]!]);
        }
      }
      if (depth === MAX_DECODINGS) continue;
      for (const decode of DECODERS) {
        const decoded = decode(view);
        if (decoded && !seen.has(decoded.text)) {
          seen.add(decoded.text);
          next.push(decoded);
        }
      }
    }
    views = next;
  }
  return spans.length === 0 ? text : redactSpans(text, spans);
}

/** Characters of a decoded text, each with the span [start, end) of the original text it came from. */
interface View {
  text: string;
  starts: Int32Array;
  ends: Int32Array;
}

function identityView(text: string): View {
  const starts = new Int32Array(text.length);
  const ends = new Int32Array(text.length);
  for (let index = 0; index < text.length; index++) {
    starts[index] = index;
    ends[index] = index + 1;
  }
  return { text, starts, ends };
}

const utf16 = new TextDecoder("utf-16le");

/** Builds a view from another, one decoded piece at a time; a decoding never lengthens a text. */
function viewBuilder(from: View) {
  const units = new Uint16Array(from.text.length);
  const starts = new Int32Array(from.text.length);
  const ends = new Int32Array(from.text.length);
  let length = 0;
  return {
    /** `decoded` stands for the characters `first`…`last` of `from`. */
    push(decoded: string, first: number, last: number): void {
      for (let unit = 0; unit < decoded.length; unit++) {
        units[length] = decoded.charCodeAt(unit);
        starts[length] = from.starts[first]!;
        ends[length] = from.ends[last]!;
        length++;
      }
    },
    view: (): View => ({ text: utf16.decode(units.subarray(0, length)), starts: starts.subarray(0, length), ends: ends.subarray(0, length) }),
  };
}

const JSON_ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** Decodes JSON string escapes wherever they stand (one level); null when the text has none. */
function jsonUnescaped(from: View): View | null {
  const { text } = from;
  if (!text.includes("\\")) return null;
  const out = viewBuilder(from);
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (char === "\\" && index + 1 < text.length) {
      const next = text[index + 1]!;
      const simple = JSON_ESCAPES[next];
      if (simple !== undefined) {
        out.push(simple, index, index + 1);
        index += 1;
        continue;
      }
      if (next === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(index + 2, index + 6))) {
        out.push(String.fromCharCode(Number.parseInt(text.slice(index + 2, index + 6), 16)), index, index + 5);
        index += 5;
        continue;
      }
    }
    out.push(char, index, index);
  }
  return out.view();
}

/** Decodes `%XX` escapes (UTF-8 sequences as one character); null when the text has none. */
function urlUnescaped(from: View): View | null {
  const { text } = from;
  if (!text.includes("%")) return null;
  const out = viewBuilder(from);
  const byteAt = (index: number): number => (text[index] === "%" && /^[0-9a-fA-F]{2}$/.test(text.slice(index + 1, index + 3)) ? Number.parseInt(text.slice(index + 1, index + 3), 16) : -1);
  for (let index = 0; index < text.length; index++) {
    const lead = byteAt(index);
    if (lead === -1) {
      out.push(text[index]!, index, index);
      continue;
    }
    const length = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    const bytes = [lead];
    for (let more = 1; more < length && byteAt(index + 3 * more) !== -1; more++) bytes.push(byteAt(index + 3 * more));
    const decoded = bytes.length === length ? utf8(bytes) : null;
    if (decoded === null) {
      out.push(String.fromCharCode(lead), index, index + 2);
      index += 2;
      continue;
    }
    out.push(decoded, index, index + 3 * length - 1);
    index += 3 * length - 1;
  }
  return out.view();
}

const fatalUtf8 = new TextDecoder("utf-8", { fatal: true });

function utf8(bytes: number[]): string | null {
  try {
    return fatalUtf8.decode(new Uint8Array(bytes));
  } catch {
    return null;
  }
}

const DECODERS = [jsonUnescaped, urlUnescaped];

/** `text` with the spans (which may overlap) replaced by `[redacted]`, once per merged span. */
function redactSpans(text: string, spans: [number, number][]): string {
  spans.sort((a, b) => a[0] - b[0]);
  let out = "";
  let at = 0;
  let current: [number, number] | null = null;
  for (const span of spans) {
    if (current && span[0] < current[1]) {
      current[1] = Math.max(current[1], span[1]);
      continue;
    }
    if (current) {
      out += text.slice(at, current[0]) + REDACTED;
      at = current[1];
    }
    current = [span[0], span[1]];
  }
  if (current) out += text.slice(at, current[0]) + REDACTED;
  return out + text.slice(current ? current[1] : at);
}
