import type { SemanticCacheRepository, StoredSemanticEntry } from "../store/semantic-cache-repository.ts";
import { cachedAnswerBytes, parseCachedAnswer, type CachedAnswer } from "./cached-answer.ts";
import { SemanticIndex } from "./semantic-index.ts";
import { checkVector, type ScalarKind, type VectorCheck } from "./semantic-vector.ts";

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
  /** Per workspace: at most this many entries and bytes (partitions' fixed cost included); the least recently used partition's oldest entries go first. */
  maxEntries: number;
  maxBytes: number;
  /** Per workspace: at most this many partitions; an answer that needs another is not kept by meaning. */
  maxPartitions: number;
  /** How the indexes store vector components: float16 unless told. */
  scalar?: ScalarKind;
  now?: () => number;
  segmentSize?: number;
  /** A store write or read that failed, or an index that could not grow (the cache goes on without it). */
  onError?: (error: unknown) => void;
}

interface Partition {
  name: string;
  workspaceId: string;
  index: SemanticIndex;
  /** Its entries by index key, oldest first. */
  entries: Map<number, SemanticEntry>;
  /** The latest expiry of any entry it was given: past it, nothing in it can be served. */
  expiresAt: number;
}

interface WorkspaceUsage {
  entries: number;
  /** Its partitions, least recently used first: a lookup or a new entry moves one to the end. */
  partitions: Map<string, Partition>;
  /** Its entries' bytes and its partitions' fixed cost (`SemanticIndex.fixedBytes`). */
  bytes: number;
}

/** What `insert` did: the vector held (unit length), null when the entry is not held; the ids it evicted to stay within the bounds. */
interface Inserted {
  vector: Float32Array | null;
  evicted: string[];
}

const ENTRY_OVERHEAD_BYTES = 512;
const LOAD_PAGE = 100;

/**
 * The semantic cache's entries: one nearest-neighbour index per partition (workspace, namespace,
 * model, embedding target), every entry also in the store so that a restart keeps them and other
 * replicas load them when told (`onChange` → Redis → `applyRemote`). Bounded per workspace by
 * entries, bytes (each partition's index counts its fixed cost) and partitions; past the entries
 * or bytes, the least recently used partition loses its oldest entries first (from the store
 * too), and a partition left empty goes whole. Every vector is checked before it is searched for
 * or kept (`checkVector`): one the index cannot hold faithfully is refused, never compared.
 * Expired entries are never served and `sweep` drops them. Lookups are synchronous and touch
 * memory only; nothing here throws on the request path.
 */
export class SemanticCache {
  private readonly partitions = new Map<string, Partition>();
  private readonly byId = new Map<string, SemanticEntry>();
  private readonly workspaces = new Map<string, WorkspaceUsage>();
  private readonly listeners: ((change: SemanticChange) => void)[] = [];
  private readonly now: () => number;
  private readonly scalar: ScalarKind;
  private nextKey = 1;

  constructor(private readonly options: SemanticCacheOptions) {
    this.now = options.now ?? Date.now;
    this.scalar = options.scalar ?? "f16";
  }

  get size(): number {
    return this.byId.size;
  }

  /** Partitions held, across workspaces. */
  get partitionCount(): number {
    return this.partitions.size;
  }

  /** What the entries and their partitions hold in memory, by the same measure as the bounds. */
  get bytes(): number {
    let total = 0;
    for (const usage of this.workspaces.values()) total += usage.bytes;
    return total;
  }

  /** Told of every entry this replica stores or drops for a reason the others do not see themselves. */
  onChange(listener: (change: SemanticChange) => void): void {
    this.listeners.push(listener);
  }

  /** The vector as the partition's index would search for or keep it (unit length), or why it cannot be used. Never throws. */
  check(partition: string, vector: ArrayLike<number>): VectorCheck {
    const held = this.partitions.get(partition);
    return held ? held.index.check(vector) : checkVector(vector, { scalar: this.scalar });
  }

  /**
   * Why an answer of this partition would not be kept, for the request's `cache_note`: the
   * workspace already holds its most partitions, none of them expired. Null when it would be.
   */
  partitionRefusal(workspaceId: string, partition: string): string | null {
    if (this.partitions.has(partition)) return null;
    const usage = this.workspaces.get(workspaceId);
    const max = this.options.maxPartitions;
    if (!usage || usage.partitions.size < max) return null;
    const now = this.now();
    for (const held of usage.partitions.values()) if (held.expiresAt <= now) return null;
    return `the workspace already has ${max} partitions (namespace, model, embedding target) in this replica's semantic cache, its most (GATEWAY_SEMANTIC_CACHE_MAX_PARTITIONS)`;
  }

  /** The most similar unexpired entry of the partition with exactly this scope, at least `minSimilarity` similar; null when none or when the vector is refused. */
  lookup(partition: string, scope: string, vector: ArrayLike<number>, minSimilarity: number): { entry: SemanticEntry; similarity: number } | null {
    const held = this.partitions.get(partition);
    if (!held) return null;
    this.workspaces.get(held.workspaceId)?.partitions.delete(partition);
    this.workspaces.get(held.workspaceId)?.partitions.set(partition, held);
    const now = this.now();
    const match = held.index.search(vector, minSimilarity, (key) => {
      const entry = held.entries.get(key);
      return entry !== undefined && entry.scope === scope && entry.expiresAt > now;
    });
    if (!match) return null;
    return { entry: held.entries.get(match.key)!, similarity: match.similarity };
  }

  /**
   * Keeps a new answer here now, then in the store, then tells the other replicas. An answer
   * that cannot be held (its vector refused, its workspace at its most partitions) is kept
   * nowhere, and an older one with its id is dropped everywhere. Never throws.
   */
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
    const replaced = this.byId.has(put.id);
    const { vector, evicted } = this.insert(stored, put.answer);
    const held = vector !== null && this.byId.has(put.id);
    const gone = held || !replaced || evicted.includes(put.id) ? evicted : [...evicted, put.id];
    const repository = this.options.repository;
    if (!repository) return;
    try {
      if (held) await repository.put({ ...stored, vector });
      if (gone.length > 0) await repository.delete(gone);
    } catch (error) {
      this.options.onError?.(error);
      return;
    }
    if (held) this.announce({ kind: "put", id: put.id });
    if (gone.length > 0) this.announce({ kind: "delete", ids: gone });
  }

  /** Loads every unexpired entry of the store, a page at a time, yielding between pages; one that cannot be held is skipped. */
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
        const { vector, evicted } = this.insert(row, answer);
        if (evicted.length > 0) await repository.delete(evicted);
        if (vector) loaded++;
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

  /**
   * Holds the entry, replacing one with its id (which goes even when the new one cannot be held:
   * its vector refused, no partition for it, an index that cannot grow), then evicts to stay
   * within the workspace's bounds.
   */
  private insert(row: StoredSemanticEntry, answer: CachedAnswer): Inserted {
    this.remove(row.id);
    const checked = this.check(row.partition, row.vector);
    if (!checked.ok) return { vector: null, evicted: [] };
    const partition = this.partitionFor(row.workspaceId, row.partition, checked.vector.length);
    if (!partition) return { vector: null, evicted: [] };
    const usage = this.workspaces.get(row.workspaceId)!;
    const key = this.nextKey++;
    const fixedBefore = partition.index.fixedBytes;
    try {
      partition.index.add(key, checked.vector);
    } catch (error) {
      // usearch could not reserve memory for it; a segment it made on the way is counted all the same.
      this.options.onError?.(error);
      usage.bytes += partition.index.fixedBytes - fixedBefore;
      if (partition.entries.size === 0) this.dropPartition(partition, usage);
      return { vector: null, evicted: [] };
    }
    const bytes = cachedAnswerBytes(answer) + SemanticIndex.bytesPerVector(checked.vector.length, this.scalar) + ENTRY_OVERHEAD_BYTES;
    const entry: SemanticEntry = { id: row.id, workspaceId: row.workspaceId, partition: row.partition, scope: row.scope, answer, logId: row.logId, createdAt: row.createdAt, expiresAt: row.expiresAt, bytes, key };
    partition.entries.set(key, entry);
    partition.expiresAt = Math.max(partition.expiresAt, entry.expiresAt);
    this.byId.set(entry.id, entry);
    usage.entries++;
    usage.bytes += bytes + partition.index.fixedBytes - fixedBefore;
    usage.partitions.delete(partition.name);
    usage.partitions.set(partition.name, partition);
    const evicted: string[] = [];
    while (usage.entries > this.options.maxEntries || usage.bytes > this.options.maxBytes) {
      const victim = usage.partitions.values().next().value;
      const oldest = victim?.entries.values().next().value;
      if (!oldest) break;
      this.remove(oldest.id);
      evicted.push(oldest.id);
    }
    return { vector: checked.vector, evicted };
  }

  private remove(id: string): void {
    const entry = this.byId.get(id);
    if (!entry) return;
    this.byId.delete(id);
    const usage = this.workspaces.get(entry.workspaceId);
    let freed = entry.bytes;
    const partition = this.partitions.get(entry.partition);
    if (partition) {
      const fixedBefore = partition.index.fixedBytes;
      partition.entries.delete(entry.key);
      partition.index.remove(entry.key);
      if (partition.entries.size === 0) {
        this.partitions.delete(partition.name);
        usage?.partitions.delete(partition.name);
        freed += fixedBefore;
      } else {
        freed += fixedBefore - partition.index.fixedBytes;
      }
    }
    if (usage) {
      usage.entries--;
      usage.bytes -= freed;
      if (usage.entries === 0) this.workspaces.delete(entry.workspaceId);
    }
  }

  /**
   * The partition of a new entry: the one held (when its workspace and dimensions agree), else a
   * new one if the workspace has room for it, after dropping its partitions whose entries have all
   * expired. Null when it has none.
   */
  private partitionFor(workspaceId: string, name: string, dimensions: number): Partition | null {
    const existing = this.partitions.get(name);
    if (existing) return existing.workspaceId === workspaceId && existing.index.dimensions === dimensions ? existing : null;
    let usage = this.workspaces.get(workspaceId);
    if (usage && usage.partitions.size >= this.options.maxPartitions) {
      const now = this.now();
      for (const expired of [...usage.partitions.values()].filter((held) => held.expiresAt <= now)) {
        for (const entry of [...expired.entries.values()]) this.remove(entry.id);
      }
      usage = this.workspaces.get(workspaceId);
      if (usage && usage.partitions.size >= this.options.maxPartitions) return null;
    }
    if (!usage) {
      usage = { entries: 0, partitions: new Map(), bytes: 0 };
      this.workspaces.set(workspaceId, usage);
    }
    const created: Partition = { name, workspaceId, index: new SemanticIndex(dimensions, this.options.segmentSize, this.scalar), entries: new Map(), expiresAt: 0 };
    this.partitions.set(name, created);
    usage.partitions.set(name, created);
    return created;
  }

  /** Forgets a partition that holds no entry. */
  private dropPartition(partition: Partition, usage: WorkspaceUsage): void {
    this.partitions.delete(partition.name);
    usage.partitions.delete(partition.name);
    usage.bytes -= partition.index.fixedBytes;
    if (usage.entries === 0 && usage.partitions.size === 0) this.workspaces.delete(partition.workspaceId);
  }

  private announce(change: SemanticChange): void {
    for (const listener of this.listeners) listener(change);
  }
}
