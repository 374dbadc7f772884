import type { GatewayConfig } from "../config.ts";
import type { SharedRedis } from "../shared-state/redis.ts";
import { MemoryAnswerStore } from "./memory-answer-store.ts";
import { RedisAnswerStore } from "./redis-answer-store.ts";
import type { AnswerCache } from "./response-cache.ts";

/** The gateway's answer cache: shared in Redis when `GATEWAY_REDIS_URL` is set, else in this process. */
export function createAnswerCache(config: GatewayConfig, redis: SharedRedis | null): AnswerCache {
  const store = redis
    ? new RedisAnswerStore(redis)
    : new MemoryAnswerStore({ maxEntries: config.GATEWAY_CACHE_MAX_ENTRIES, maxBytes: config.GATEWAY_CACHE_MAX_BYTES });
  return { store, maxEntryBytes: config.GATEWAY_CACHE_MAX_ENTRY_BYTES };
}
