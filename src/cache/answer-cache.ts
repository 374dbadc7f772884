import type { GatewayConfig } from "../config.ts";
import type { SharedRedis } from "../shared-state/redis.ts";
import type { SemanticCacheRepository } from "../store/semantic-cache-repository.ts";
import { MemoryAnswerStore } from "./memory-answer-store.ts";
import { RedisAnswerStore } from "./redis-answer-store.ts";
import type { AnswerCache } from "./response-cache.ts";
import { SemanticCache } from "./semantic-cache.ts";

/** How often expired semantic entries are dropped from memory and the store. */
const SWEEP_INTERVAL_MS = 60_000;

/** The answer cache and what runs beside it: the semantic cache's load at start and its expiry sweep. */
export interface OpenedAnswerCache {
  cache: AnswerCache;
  /** Settles once the semantic cache holds what the store kept (loaded in the background). */
  loaded: Promise<number>;
  close(): void;
}

/**
 * The gateway's answer cache: exact answers shared in Redis when `GATEWAY_REDIS_URL` is set,
 * else in this process; semantic entries in each replica's memory, persisted in the store and
 * loaded from it (in the background, so start-up does not wait for it).
 */
export function createAnswerCache(config: GatewayConfig, redis: SharedRedis | null, repository: SemanticCacheRepository | null = null): OpenedAnswerCache {
  const store = redis
    ? new RedisAnswerStore(redis)
    : new MemoryAnswerStore({ maxEntries: config.GATEWAY_CACHE_MAX_ENTRIES, maxBytes: config.GATEWAY_CACHE_MAX_BYTES });
  let reported = false;
  const semantic = new SemanticCache({
    repository,
    maxEntries: config.GATEWAY_SEMANTIC_CACHE_MAX_ENTRIES,
    maxBytes: config.GATEWAY_SEMANTIC_CACHE_MAX_BYTES,
    maxPartitions: config.GATEWAY_SEMANTIC_CACHE_MAX_PARTITIONS,
    onError: (error) => {
      // Once per outage of the store: the cache goes on in memory meanwhile.
      if (reported) return;
      reported = true;
      console.error(`[gateway] semantic cache: the store failed (${error instanceof Error ? error.message : String(error)}); entries stay in this replica's memory`);
      setTimeout(() => (reported = false), SWEEP_INTERVAL_MS).unref?.();
    },
  });
  const loaded = semantic.load().catch((error: unknown) => {
    console.error(`[gateway] semantic cache: could not load the stored entries (${error instanceof Error ? error.message : String(error)})`);
    return 0;
  });
  const sweeper = setInterval(() => void semantic.sweep(), SWEEP_INTERVAL_MS);
  sweeper.unref?.();
  return { cache: { store, maxEntryBytes: config.GATEWAY_CACHE_MAX_ENTRY_BYTES, semantic }, loaded, close: () => clearInterval(sweeper) };
}
