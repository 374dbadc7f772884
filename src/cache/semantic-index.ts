import { createRequire } from "node:module";
import type * as Usearch from "usearch";
import { checkVector, type ScalarKind, type VectorCheck } from "./semantic-vector.ts";

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
 * What one segment holds in resident memory besides its vectors, counted against the workspace's
 * bytes: usearch's index (the first pages of its node and vector arenas, its thread context, its
 * level table: about 48 KiB and 3 bytes a dimension) and the partition's objects around it.
 * Measured on Linux x64 with Node 20 and usearch 2.25 by `npm run bench:cache:index --
 * --partitions 3000` (RSS growth per one-entry partition after GC: 54 KiB at 256 dimensions,
 * 61 KiB at 1536, 69 KiB at 3072, entry included); these figures count a little more. Each index
 * also reserves about 17 MB of address space that is not resident.
 */
const INDEX_FIXED_BYTES = 52 * 1024;
const INDEX_BYTES_PER_DIMENSION = 3;

/**
 * Approximate nearest neighbours (cosine) of one partition of the semantic cache: usearch's
 * HNSW index (`usearch`, prebuilt N-API binaries for Bun and Node), vectors kept as float16
 * (or float32). Every vector added or searched for is checked and scaled to unit length first
 * (`checkVector`): one with a component past the stored kind's range would score as identical to
 * every other.
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
    readonly scalar: ScalarKind = "f16",
  ) {}

  /** Live keys. */
  get size(): number {
    return this.segmentOf.size;
  }

  /** Roughly what the index holds in native memory: each segment's fixed cost, and every vector added to a live segment, with its links. */
  get bytes(): number {
    let added = 0;
    for (const segment of this.segments) added += segment.added;
    return this.fixedBytes + added * SemanticIndex.bytesPerVector(this.dimensions, this.scalar);
  }

  /** What its segments cost before their vectors (`fixedBytesPerSegment` each). */
  get fixedBytes(): number {
    return this.segments.length * SemanticIndex.fixedBytesPerSegment(this.dimensions);
  }

  /** A vector at the stored precision, its level-0 links (two per connection, 4 bytes each) and its key and level. */
  static bytesPerVector(dimensions: number, scalar: ScalarKind = "f16"): number {
    return dimensions * (scalar === "f16" ? 2 : 4) + CONNECTIVITY * 2 * 4 + 64;
  }

  /** What one segment (a usearch index) holds before its vectors, as measured (`INDEX_FIXED_BYTES`). */
  static fixedBytesPerSegment(dimensions: number): number {
    return INDEX_FIXED_BYTES + INDEX_BYTES_PER_DIMENSION * dimensions;
  }

  /** The vector as this index keeps it (unit length), or why it cannot be kept or searched for. */
  check(vector: ArrayLike<number>): VectorCheck {
    return checkVector(vector, { scalar: this.scalar, dimensions: this.dimensions });
  }

  /** Adds a vector under `key`. Throws a `RangeError` for a vector `check` refuses (callers check first), or when usearch cannot reserve memory. */
  add(key: number, vector: ArrayLike<number>): void {
    const checked = this.check(vector);
    if (!checked.ok) throw new RangeError(`vector refused: ${checked.reason}`);
    let segment = this.segments.at(-1);
    if (!segment || segment.added >= this.segmentSize) {
      const { Index, MetricKind, ScalarKind } = loadUsearch();
      segment = {
        index: new Index({
          dimensions: this.dimensions,
          metric: MetricKind.Cos,
          quantization: this.scalar === "f16" ? ScalarKind.F16 : ScalarKind.F32,
          connectivity: CONNECTIVITY,
          expansion_add: EXPANSION,
          expansion_search: EXPANSION,
          multi: false,
        }),
        live: new Set(),
        added: 0,
      };
      this.segments.push(segment);
    }
    // One thread: usearch keeps a search context per thread it is told of (the machine's cores by default).
    segment.index.add(BigInt(key), checked.vector, 1);
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

  /** The most similar live key that `accept` takes, at least `minSimilarity` similar; null when none, or when `check` refuses the vector. */
  search(vector: ArrayLike<number>, minSimilarity: number, accept: (key: number) => boolean): IndexMatch | null {
    const checked = this.check(vector);
    if (!checked.ok) return null;
    let best: IndexMatch | null = null;
    for (const segment of this.segments) {
      if (segment.live.size === 0) continue;
      const found = searchSegment(segment, checked.vector, minSimilarity, accept);
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
      // NaN is never similar enough.
      if (!(similarity >= minSimilarity)) return null;
      const key = Number(keys[i]!);
      if (segment.live.has(key) && accept(key)) return { key, similarity: Math.min(1, similarity) };
    }
    if (k >= segment.added || keys.length < k) return null;
  }
}
