import type { SharedRedis } from "../shared-state/redis.ts";
import type { AnswerStore } from "./answer-store.ts";
import { parseCachedAnswer, type CachedAnswer } from "./cached-answer.ts";

const PREFIX = "gateway:cache:v1:";

/**
 * Cached answers in the shared Redis, each with its `max_age` as the key's expiry, so every
 * replica serves what any one stored. The cache fails open whatever
 * `GATEWAY_REDIS_FAILURE_POLICY` says: while Redis is down every request is a miss served by
 * the upstream and nothing is stored (refusing requests to protect a cache would be backwards).
 */
export class RedisAnswerStore implements AnswerStore {
  constructor(private readonly redis: SharedRedis) {}

  async get(key: string): Promise<CachedAnswer | null> {
    if (!this.redis.available) return null;
    try {
      const text = await this.redis.client.get(PREFIX + key);
      return text === null ? null : parseCachedAnswer(text);
    } catch {
      return null;
    }
  }

  async set(key: string, answer: CachedAnswer, ttlSeconds: number): Promise<void> {
    if (!this.redis.available) return;
    await this.redis.client.set(PREFIX + key, JSON.stringify(answer), "EX", ttlSeconds).catch(() => undefined);
  }

  async delete(key: string): Promise<void> {
    if (!this.redis.available) return;
    await this.redis.client.del(PREFIX + key).catch(() => undefined);
  }
}
