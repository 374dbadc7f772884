import { createHash } from "node:crypto";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import type { JsonObject } from "../providers/provider.ts";
import { cacheKey, canonicalJson, type CacheKeyParts } from "./cache-key.ts";
import { DEFAULT_SIMILARITY_THRESHOLD, type ConfigCacheSettings } from "./cache-settings.ts";
import type { SemanticCache, SemanticEntry } from "./semantic-cache.ts";

/** Turns a request's last user turn into a vector, through the config's embedding target. */
export interface Embedder {
  /** The embedding target as vectors depend on it (provider, base URL, model): vectors of two targets never meet. */
  identity: string;
  /**
   * The vector as the target answered it (float64: the cache checks it before any narrowing).
   * Never throws: a failure (an error answer, no answer within the budget) is a reason, for the log.
   */
  embed(text: string): Promise<{ ok: true; vector: Float64Array } | { ok: false; reason: string }>;
}

/** The embedder of a request's config, or why there is none (its virtual key is missing, say). */
export type EmbedderResult = { ok: true; embedder: Embedder } | { ok: false; reason: string };

/** What a semantic lookup found, and what the write after a miss reuses. */
export interface SemanticOutcome {
  /** A cached answer of a request that means the same, and how similar it is. */
  hit: { entry: SemanticEntry; similarity: number } | null;
  /** Why the lookup did not run; null when it did. */
  note: string | null;
  /** Where the answer goes after a miss, with its checked unit vector: null when the lookup did not run. */
  placement: { partition: string; scope: string; vector: Float32Array } | null;
}

export interface SemanticLookupRequest {
  operation: Pick<OperationDescriptor, "semantic">;
  settings: ConfigCacheSettings;
  body: JsonObject;
  /** The exact key's parts: the scope is the same key over the body without its last user turn. */
  parts: CacheKeyParts;
  embedder: EmbedderResult | null;
  /** Skips the lookup (a forced refresh) but still places the new answer. */
  forceRefresh: boolean;
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/**
 * The semantic half of a lookup, after the exact one missed: splits the body, embeds its last
 * user turn once, and searches the partition of the request's workspace, namespace, model and
 * embedding target for an entry with the same scope. A vector the cache refuses (`checkVector`),
 * or a partition the workspace has no room for, skips the lookup and the write after it, with
 * the reason. Null when the config's mode is not `semantic` or the operation has no split
 * (embeddings). Never throws.
 */
export async function semanticLookup(request: SemanticLookupRequest, cache: SemanticCache): Promise<SemanticOutcome | null> {
  if (request.settings.mode !== "semantic" || !request.operation.semantic || !request.embedder) return null;
  const split = request.operation.semantic(request.body);
  if (!split) return skipped("the request's last turn is not a user's plain text");
  if (!request.embedder.ok) return skipped(request.embedder.reason);
  const embedded = await request.embedder.embedder.embed(split.text);
  if (!embedded.ok) return skipped(embedded.reason);
  const { parts } = request;
  const model = parts.targets[0]?.model ?? (typeof request.body.model === "string" ? request.body.model : null);
  const partition = sha256(
    canonicalJson({ workspace: parts.workspaceId, namespace: parts.namespace, model, embedding: request.embedder.embedder.identity, dimensions: embedded.vector.length }),
  );
  const checked = cache.check(partition, embedded.vector);
  if (!checked.ok) return skipped(`the embedding target answered a vector the cache cannot use: ${checked.reason}`);
  const refusal = cache.partitionRefusal(parts.workspaceId, partition);
  if (refusal) return skipped(refusal);
  // The rest of the body is not the client's text: its digest is computed, not remembered.
  const scope = cacheKey({ ...parts, body: split.rest, bodyText: undefined });
  const placement = { partition, scope, vector: checked.vector };
  const threshold = request.settings.similarity_threshold ?? DEFAULT_SIMILARITY_THRESHOLD;
  const hit = request.forceRefresh ? null : cache.lookup(partition, scope, checked.vector, threshold);
  return { hit, note: null, placement };
}

function skipped(reason: string): SemanticOutcome {
  return { hit: null, note: `semantic lookup skipped: ${reason}`, placement: null };
}
