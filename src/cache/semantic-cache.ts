import type { SemanticCacheRepository, StoredSemanticEntry } from "../store/semantic-cache-repository.ts";
import { cachedAnswerBytes, parseCachedAnswer, type CachedAnswer } from "./cached-answer.ts";
import { SemanticIndex } from "./semantic-index.ts";

/** One answer of the semantic cache, as a replica holds it (its vector lives in the partition's index). */
export interface SemanticEntry {
  /** The exact cache key of the request that stored it. */
  id: string;
  workspaceId: string;
  partition: string;
  scope: string;
  answer: CachedAnswer;
  logId: string | null;
  createdAt: number;
  expiresAt: number;
  /** What it holds in memory: the answer's texts, its vector and links in the index, the entry. */
  bytes: number;
  /** Its key in the partition's index. */
  key: number;
}

/** What one replica announces to the others: an entry stored, or entries gone (evicted, replaced). */
export type SemanticChange = { kind: "put"; id: string } | { kind: "delete"; ids: string[] };

/** A new answer for the cache, with the vector its lookup computed. */
export interface SemanticPut {
  id: string;
  workspaceId: string;
  partition: string;
  scope: string;
  vector: Float32Array;
  answer: CachedAnswer;
  logId: string | null;
  ttlSeconds: number;
}

export interface SemanticCacheOptions {
  /** Where entries persist; null keeps them in this process only. */
  repository: SemanticCacheRepository | null;
  /** Per workspace: at most this many entries and bytes; the oldest go first. */
  maxEntries: number;
  maxBytes: number;
  now?: () => number;
  segmentSize?: number;
  /** A store write or read that failed (the cache goes on without it). */
  onError?: (error: unknown) => void;
}

interface Partition {
  index: SemanticIndex;
  entries: Map<number, SemanticEntry>;
}

interface WorkspaceUsage {
  /** Its entries by id, oldest first (a `Map` keeps insertion order). */
  entries: Map<string, SemanticEntry>;
  bytes: number;
}

const ENTRY_OVERHEAD_BYTES = 512;
const LOAD_PAGE = 100;

/**
 * The semantic cache's entries: one nearest-neighbour index per partition (workspace, namespace,
 * model, embedding target), every entry also in the store so that a restart keeps them and other
 * replicas load them when told (`onChange` → Redis → `applyRemote`). Bounded per workspace by
 * entries and bytes, oldest evicted (from the store too); expired entries are never served and
 * `sweep` drops them. Lookups are synchronous and touch memory only; nothing here throws on the
 * request path.
 */
export class SemanticCache {
  private readonly partitions = new Map<string, Partition>();
  private readonly byId = new Map<string, SemanticEntry>();
  private readonly workspaces = new Map<string, WorkspaceUsage>();
  private readonly listeners: ((change: SemanticChange) => void)[] = [];
  private readonly now: () => number;
  private nextKey = 1;

  constructor(private readonly options: SemanticCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.byId.size;
  }

  /** What the entries hold in memory, by the same measure as the bounds. */
  get bytes(): number {
    let total = 0;
    for (const usage of this.workspaces.values()) total += usage.bytes;
    return total;
  }

  /** Told of every entry this replica stores or drops for a reason the others do not see themselves. */
  onChange(listener: (change: SemanticChange) => void): void {
    this.listeners.push(listener);
  }

  /** The most similar unexpired entry of the partition with exactly this scope, at least `minSimilarity` similar. */
  lookup(partition: string, scope: string, vector: Float32Array, minSimilarity: number): { entry: SemanticEntry; similarity: number } | null {
    const held = this.partitions.get(partition);
    if (!held || held.index.dimensions !== vector.length) return null;
    const now = this.now();
    const match = held.index.search(vector, minSimilarity, (key) => {
      const entry = held.entries.get(key);
      return entry !== undefined && entry.scope === scope && entry.expiresAt > now;
    });
    if (!match) return null;
    return { entry: held.entries.get(match.key)!, similarity: match.similarity };
  }

  /** Keeps a new answer here now, then in the store, then tells the other replicas. Never throws. */
  async put(put: SemanticPut): Promise<void> {
    const createdAt = this.now();
    const stored: StoredSemanticEntry = {
      id: put.id,
      workspaceId: put.workspaceId,
      partition: put.partition,
      scope: put.scope,
      vector: put.vector,
      answer: JSON.stringify(put.answer),
      logId: put.logId,
      createdAt,
      expiresAt: createdAt + put.ttlSeconds * 1000,
    };
    const evicted = this.insert(stored, put.answer);
    const repository = this.options.repository;
    if (!repository) return;
    try {
      await repository.put(stored);
      if (evicted.length > 0) await repository.delete(evicted);
    } catch (error) {
      this.options.onError?.(error);
      return;
    }
    this.announce({ kind: "put", id: put.id });
    if (evicted.length > 0) this.announce({ kind: "delete", ids: evicted });
  }

  /** Loads every unexpired entry of the store, a page at a time, yielding between pages. */
  async load(): Promise<number> {
    const repository = this.options.repository;
    if (!repository) return 0;
    let after: { createdAt: number; id: string } | null = null;
    let loaded = 0;
    for (;;) {
      const page = await repository.live(this.now(), after, LOAD_PAGE);
      for (const row of page) {
        const answer = parseCachedAnswer(row.answer);
        if (!answer || this.byId.has(row.id)) continue;
        const evicted = this.insert(row, answer);
        if (evicted.length > 0) await repository.delete(evicted);
        loaded++;
      }
      if (page.length < LOAD_PAGE) return loaded;
      const last = page.at(-1)!;
      after = { createdAt: last.createdAt, id: last.id };
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** What another replica announced: loads a stored entry, or drops gone ones. Never throws. */
  async applyRemote(change: SemanticChange): Promise<void> {
    if (change.kind === "delete") {
      for (const id of change.ids) this.remove(id);
      return;
    }
    try {
      const row = await this.options.repository?.get(change.id);
      const answer = row ? parseCachedAnswer(row.answer) : null;
      if (row && answer && row.expiresAt > this.now()) this.insert(row, answer);
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  /** Drops expired entries here, and from the store. Never throws. */
  async sweep(): Promise<void> {
    const now = this.now();
    for (const entry of [...this.byId.values()]) if (entry.expiresAt <= now) this.remove(entry.id);
    try {
      await this.options.repository?.deleteExpired(now);
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  /** Holds the entry (replacing one with its id); returns the ids evicted to stay within the workspace's bounds. */
  private insert(row: StoredSemanticEntry, answer: CachedAnswer): string[] {
    this.remove(row.id);
    const partition = this.partitionFor(row.partition, row.vector.length);
    if (!partition) return [];
    const key = this.nextKey++;
    const bytes = cachedAnswerBytes(answer) + SemanticIndex.bytesPerVector(row.vector.length) + ENTRY_OVERHEAD_BYTES;
    const entry: SemanticEntry = { id: row.id, workspaceId: row.workspaceId, partition: row.partition, scope: row.scope, answer, logId: row.logId, createdAt: row.createdAt, expiresAt: row.expiresAt, bytes, key };
    partition.index.add(key, row.vector);
    partition.entries.set(key, entry);
    this.byId.set(entry.id, entry);
    let usage = this.workspaces.get(entry.workspaceId);
    if (!usage) {
      usage = { entries: new Map(), bytes: 0 };
      this.workspaces.set(entry.workspaceId, usage);
    }
    usage.entries.set(entry.id, entry);
    usage.bytes += bytes;
    const evicted: string[] = [];
    for (const oldest of usage.entries.values()) {
      if (usage.entries.size <= this.options.maxEntries && usage.bytes <= this.options.maxBytes) break;
      this.remove(oldest.id);
      evicted.push(oldest.id);
    }
    return evicted;
  }

  private remove(id: string): void {
    const entry = this.byId.get(id);
    if (!entry) return;
    this.byId.delete(id);
    const partition = this.partitions.get(entry.partition);
    if (partition) {
      partition.entries.delete(entry.key);
      partition.index.remove(entry.key);
      if (partition.entries.size === 0) this.partitions.delete(entry.partition);
    }
    const usage = this.workspaces.get(entry.workspaceId);
    if (usage) {
      usage.entries.delete(id);
      usage.bytes -= entry.bytes;
      if (usage.entries.size === 0) this.workspaces.delete(entry.workspaceId);
    }
  }

  private partitionFor(name: string, dimensions: number): Partition | null {
    const existing = this.partitions.get(name);
    if (existing) return existing.index.dimensions === dimensions ? existing : null;
    const created: Partition = { index: new SemanticIndex(dimensions, this.options.segmentSize), entries: new Map() };
    this.partitions.set(name, created);
    return created;
  }

  private announce(change: SemanticChange): void {
    for (const listener of this.listeners) listener(change);
  }
}
