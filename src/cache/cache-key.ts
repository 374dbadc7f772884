import { createHash } from "node:crypto";
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
}

/**
 * JSON with every object's keys in sorted order, at every depth: two bodies that differ only in
 * key order or whitespace give the same text. Arrays keep their order (it is meaning).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const record = value as Record<string, unknown>;
  const fields: string[] = [];
  for (const key of Object.keys(record).sort()) {
    // As JSON.stringify: a field whose value is undefined (or a function) is left out.
    if (record[key] === undefined || typeof record[key] === "function") continue;
    fields.push(`${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  }
  return `{${fields.join(",")}}`;
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/**
 * A target as the key sees it: provider, base URL, model and its credentials (key, organisation,
 * project), so two callers with different upstream keys never share answers. The credentials are
 * only ever hashed, with the rest of the key: no stored key holds them.
 */
function targetIdentity(target: Target): string {
  return canonicalJson({ provider: target.provider.id, baseUrl: target.baseUrl, model: target.model, credentials: target.credentials });
}

/**
 * The cache key of a request: a SHA-256 over the canonical JSON of every part. No field of the
 * body is left out: each one the upstream reads may change the answer (`user` feeds its abuse
 * monitoring, `seed` and `temperature` pick the sample, `metadata` goes with the request).
 */
export function cacheKey(parts: CacheKeyParts): string {
  const targets = [...new Set(parts.targets.map((target, index) => `${targetIdentity(target)}${canonicalJson(parts.targetOverrides?.[index] ?? {})}`))].sort();
  const headers = Object.fromEntries(Object.entries(parts.forwardedHeaders).map(([name, value]) => [name.toLowerCase(), value]));
  return sha256(
    canonicalJson({
      version: 1,
      workspace: parts.workspaceId,
      namespace: parts.namespace,
      operation: parts.operationId,
      path: parts.upstreamPath,
      headers,
      targets,
      body: parts.body,
    }),
  );
}
