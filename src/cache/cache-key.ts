import * as nodeCrypto from "node:crypto";
import type { JsonObject } from "../providers/provider.ts";
import type { Target } from "../operation/target.ts";

/** What makes two requests the same request. */
export interface CacheKeyParts {
  workspaceId: string;
  /** `x-gateway-cache-namespace`; the empty string when absent. */
  namespace: string;
  operationId: string;
  upstreamPath: string;
  /** The client headers passed upstream (`OpenAI-Beta`), which can change the answer. */
  forwardedHeaders: Readonly<Record<string, string>>;
  /** Every target the request may be served by (fallback, load balancing): the set, not the order. */
  targets: readonly Target[];
  /** Each target's own `override_params`, which change the body it is sent. */
  targetOverrides?: ReadonlyArray<Record<string, unknown> | undefined>;
  /** The body as it goes upstream (after the config's `override_params`). */
  body: JsonObject;
  /** The client's exact text of `body`, when `body` is just that text parsed: its digest is remembered by it. */
  bodyText?: string;
}

/**
 * JSON with every object's keys in sorted order, at every depth: two bodies that differ only in
 * key order or whitespace give the same text. Arrays keep their order (it is meaning).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    let text = "[";
    for (let i = 0; i < value.length; i++) text += (i === 0 ? "" : ",") + canonicalJson(value[i]);
    return text + "]";
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length > 1) keys.sort();
  let text = "{";
  for (const key of keys) {
    const field = record[key];
    // As JSON.stringify: a field whose value is undefined (or a function) is left out.
    if (field === undefined || typeof field === "function") continue;
    text += (text.length === 1 ? "" : ",") + JSON.stringify(key) + ":" + canonicalJson(field);
  }
  return text + "}";
}

/** `crypto.hash` (Node 20.12+, Bun) digests without making a `Hash` object; a runtime without it makes one. */
const oneShot = (nodeCrypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;
const sha256 = (text: string): string => (oneShot ? oneShot("sha256", text, "hex") : nodeCrypto.createHash("sha256").update(text).digest("hex"));

/** Body texts up to this size have their digest remembered; a longer one is digested each time. */
const REMEMBERED_TEXT_CHARS = 8_192;
/** The remembered texts' total size and count: past either, the oldest are forgotten. */
const REMEMBERED_TOTAL_CHARS = 4 * 1024 * 1024;
const REMEMBERED_TEXTS = 10_000;

/**
 * The digest of a body's canonical JSON, remembered by the client's exact text: a repeated
 * request (every cache hit) skips sorting and re-serialising its body. Keyed by the text itself,
 * so two texts never share an entry; the same body in another key order or spacing is another
 * text with the same digest. Bounded by size and by count, so many distinct small bodies cannot
 * grow it past a few megabytes.
 */
class BodyDigests {
  private readonly digests = new Map<string, string>();
  private chars = 0;

  of(body: JsonObject, text: string | undefined): string {
    if (text === undefined || text.length > REMEMBERED_TEXT_CHARS) return sha256(canonicalJson(body));
    const known = this.digests.get(text);
    if (known !== undefined) return known;
    const digest = sha256(canonicalJson(body));
    this.digests.set(text, digest);
    this.chars += text.length;
    for (const [oldest] of this.digests) {
      if (this.chars <= REMEMBERED_TOTAL_CHARS && this.digests.size <= REMEMBERED_TEXTS) break;
      this.digests.delete(oldest);
      this.chars -= oldest.length;
    }
    return digest;
  }
}

const bodyDigests = new BodyDigests();

/**
 * A target as the key sees it: provider, base URL, model and its credentials (key, organisation,
 * project), so two callers with different upstream keys never share answers. The credentials are
 * only ever hashed, with the rest of the key: no stored key holds them.
 */
function targetIdentity(target: Target): string {
  return JSON.stringify([target.provider.id, target.baseUrl, target.model ?? null]) + canonicalJson(target.credentials);
}

/**
 * The cache key of a request: a SHA-256 over every part, each in a fixed place, whatever a client
 * or config shapes as canonical JSON, and the body by its own digest (`BodyDigests`). No field of
 * the body is left out: each one the upstream reads may change the answer (`user` feeds its abuse
 * monitoring, `seed` and `temperature` pick the sample, `metadata` goes with the request).
 */
export function cacheKey(parts: CacheKeyParts): string {
  const identities = parts.targets.map((target, index) => `${targetIdentity(target)}${canonicalJson(parts.targetOverrides?.[index] ?? {})}`);
  // One target (most requests) is a set already.
  const targets = identities.length === 1 ? identities : [...new Set(identities)].sort();
  const headers = Object.fromEntries(Object.entries(parts.forwardedHeaders).map(([name, value]) => [name.toLowerCase(), value]));
  // The parts in a fixed order: only what a client or a config shapes needs its keys sorted.
  const body = bodyDigests.of(parts.body, parts.bodyText);
  return sha256(JSON.stringify([2, parts.workspaceId, parts.namespace, parts.operationId, parts.upstreamPath, canonicalJson(headers), targets, body]));
}
