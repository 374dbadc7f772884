import { createRequire } from "node:module";
import type * as Usearch from "usearch";

let usearch: typeof Usearch | null = null;

/** usearch's native module, loaded when the first index is made: a gateway that never caches by meaning never maps it. */
function loadUsearch(): typeof Usearch {
  usearch ??= createRequire(import.meta.url)("usearch") as typeof Usearch;
  return usearch;
}

/** HNSW parameters: 16 links a node, 64 candidates while adding and searching (usearch's defaults are 128). */
const CONNECTIVITY = 16;
const EXPANSION = 64;
/** First results asked of a segment; more only when the nearest ones are all refused. */
const FIRST_K = 8;

interface Segment {
  index: Usearch.Index;
  /** Keys added to it that are still live. */
  live: Set<number>;
  added: number;
}

/** The nearest accepted key and its cosine similarity. */
export interface IndexMatch {
  key: number;
  similarity: number;
}

/**
 * Approximate nearest neighbours (cosine) of one partition of the semantic cache: usearch's
 * HNSW index (`usearch`, prebuilt N-API binaries for Bun and Node), vectors kept as float16.
 *
 * Append-only segments: a removed key is only marked dead here, and a segment is dropped whole
 * once nothing in it is live. usearch's own removal leaves removed keys in later results and
 * its size drifting, so it is never used; entries leave the cache oldest first (expiry, the
 * bounds), which empties the oldest segments. Search asks each segment for its nearest keys and
 * keeps the best one `accept` takes.
 */
export class SemanticIndex {
  private readonly segments: Segment[] = [];
  private readonly segmentOf = new Map<number, Segment>();

  constructor(
    readonly dimensions: number,
    private readonly segmentSize = 65_536,
  ) {}

  /** Live keys. */
  get size(): number {
    return this.segmentOf.size;
  }

  /** Roughly what the index holds in native memory: every vector added to a live segment, with its links. */
  get bytes(): number {
    let added = 0;
    for (const segment of this.segments) added += segment.added;
    return added * SemanticIndex.bytesPerVector(this.dimensions);
  }

  /** A float16 vector, its level-0 links (two per connection, 4 bytes each) and its key and level. */
  static bytesPerVector(dimensions: number): number {
    return dimensions * 2 + CONNECTIVITY * 2 * 4 + 64;
  }

  add(key: number, vector: Float32Array): void {
    if (vector.length !== this.dimensions) throw new RangeError(`vector of ${vector.length} dimensions in an index of ${this.dimensions}`);
    let segment = this.segments.at(-1);
    if (!segment || segment.added >= this.segmentSize) {
      const { Index, MetricKind, ScalarKind } = loadUsearch();
      segment = {
        index: new Index({ dimensions: this.dimensions, metric: MetricKind.Cos, quantization: ScalarKind.F16, connectivity: CONNECTIVITY, expansion_add: EXPANSION, expansion_search: EXPANSION, multi: false }),
        live: new Set(),
        added: 0,
      };
      this.segments.push(segment);
    }
    segment.index.add(BigInt(key), vector);
    segment.added++;
    segment.live.add(key);
    this.segmentOf.set(key, segment);
  }

  remove(key: number): void {
    const segment = this.segmentOf.get(key);
    if (!segment) return;
    this.segmentOf.delete(key);
    segment.live.delete(key);
    if (segment.live.size === 0 && segment !== this.segments.at(-1)) this.segments.splice(this.segments.indexOf(segment), 1);
  }

  /** The most similar live key that `accept` takes, at least `minSimilarity` similar; null when none. */
  search(vector: Float32Array, minSimilarity: number, accept: (key: number) => boolean): IndexMatch | null {
    if (vector.length !== this.dimensions) return null;
    let best: IndexMatch | null = null;
    for (const segment of this.segments) {
      if (segment.live.size === 0) continue;
      const found = searchSegment(segment, vector, minSimilarity, accept);
      if (found && (!best || found.similarity > best.similarity)) best = found;
    }
    return best;
  }
}

/**
 * The segment's best accepted match. Results come nearest first: the first below the least
 * similarity ends the search; when the nearest `k` are all refused (dead, another scope, expired)
 * yet similar enough, it asks again for four times as many.
 */
function searchSegment(segment: Segment, vector: Float32Array, minSimilarity: number, accept: (key: number) => boolean): IndexMatch | null {
  for (let k = Math.min(FIRST_K, segment.added); ; k = Math.min(k * 4, segment.added)) {
    const { keys, distances } = segment.index.search(vector, k, 1);
    for (let i = 0; i < keys.length; i++) {
      const similarity = 1 - distances[i]!;
      // NaN (a zero vector has no direction) is never similar enough.
      if (!(similarity >= minSimilarity)) return null;
      const key = Number(keys[i]!);
      if (segment.live.has(key) && accept(key)) return { key, similarity: Math.min(1, similarity) };
    }
    if (k >= segment.added || keys.length < k) return null;
  }
}
