import type { CachedAnswer } from "./cached-answer.ts";

/**
 * Where cached answers live: in process (`MemoryAnswerStore`) or in Redis (`RedisAnswerStore`).
 * Both never throw: a store that cannot answer is a miss, one that cannot keep an answer skips it.
 */
export interface AnswerStore {
  get(key: string): Promise<CachedAnswer | null>;
  set(key: string, answer: CachedAnswer, ttlSeconds: number): Promise<void>;
  /** Drops an entry (a forced refresh whose new answer is not cacheable keeps no stale one). */
  delete(key: string): Promise<void>;
}
