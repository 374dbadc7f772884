/**
 * A config's `cache` as the proxy reads it. `max_age` is in seconds: 7 days when absent, at most
 * 90 days (the document's `ConfigCache` refuses more, so a stored config can never ask for it).
 */
export const DEFAULT_CACHE_MAX_AGE_S = 7 * 24 * 3600;
export const MAX_CACHE_MAX_AGE_S = 90 * 24 * 3600;
/** `similarity_threshold` when absent: cosine similarity of the last user turns' embeddings. */
export const DEFAULT_SIMILARITY_THRESHOLD = 0.95;

/** `cache` of a gateway config (`ConfigCache` in the document). */
export interface ConfigCacheSettings {
  mode?: "simple" | "semantic";
  max_age?: number;
  similarity_threshold?: number;
  /** The embedding target of `semantic` (`ConfigCacheEmbedding`). */
  embedding?: { virtual_key: string; model: string };
}

/** How long an answer is kept; null when the config caches nothing. */
export function cacheMaxAgeSeconds(cache: ConfigCacheSettings | undefined): number | null {
  if (!cache?.mode) return null;
  return Math.min(cache.max_age ?? DEFAULT_CACHE_MAX_AGE_S, MAX_CACHE_MAX_AGE_S);
}
