import type { AnswerStore } from "./answer-store.ts";
import { cachedAnswerBytes, type CachedAnswer } from "./cached-answer.ts";

interface Slot {
  answer: CachedAnswer;
  bytes: number;
  expiresAt: number;
}

/**
 * Cached answers in this process, bounded by count and by bytes: past either bound the least
 * recently used entries go (a `Map` keeps insertion order; a hit moves its entry to the end).
 * Expired entries are dropped when read, or when they reach the front.
 */
export class MemoryAnswerStore implements AnswerStore {
  private readonly slots = new Map<string, Slot>();
  private bytes = 0;

  constructor(
    private readonly limits: { maxEntries: number; maxBytes: number },
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.slots.size;
  }

  get totalBytes(): number {
    return this.bytes;
  }

  async get(key: string): Promise<CachedAnswer | null> {
    const slot = this.slots.get(key);
    if (!slot) return null;
    this.slots.delete(key);
    if (slot.expiresAt <= this.now()) {
      this.bytes -= slot.bytes;
      return null;
    }
    this.slots.set(key, slot);
    return slot.answer;
  }

  async set(key: string, answer: CachedAnswer, ttlSeconds: number): Promise<void> {
    const bytes = cachedAnswerBytes(answer);
    await this.delete(key);
    if (bytes > this.limits.maxBytes) return;
    this.slots.set(key, { answer, bytes, expiresAt: this.now() + ttlSeconds * 1000 });
    this.bytes += bytes;
    for (const [oldest, slot] of this.slots) {
      if (this.slots.size <= this.limits.maxEntries && this.bytes <= this.limits.maxBytes) break;
      this.slots.delete(oldest);
      this.bytes -= slot.bytes;
    }
  }

  async delete(key: string): Promise<void> {
    const slot = this.slots.get(key);
    if (!slot) return;
    this.slots.delete(key);
    this.bytes -= slot.bytes;
  }
}
