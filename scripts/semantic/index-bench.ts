/**
 * `npm run bench:cache:index`: what a replica holds in memory for the semantic cache and how
 * long a lookup takes, at 10,000 and 100,000 entries in one partition. Vectors of 1536
 * dimensions (`text-embedding-3-small`'s), in clusters as real embeddings are; each entry holds a
 * chat answer of about 1 KB. Memory is the process's RSS growth while filling, so it counts
 * what usearch holds natively as well as the answers. `--dimensions n` and `--answer-bytes n`
 * change the shape; `--sizes 10000,100000` the sizes.
 *
 * `--partitions n` measures partitions instead: n partitions of one entry each (one workspace,
 * as n caller-chosen namespaces make), the RSS growth per partition after GC beside what the
 * cache counts for each against `GATEWAY_SEMANTIC_CACHE_MAX_BYTES`; `--max-partitions m` bounds
 * them as `GATEWAY_SEMANTIC_CACHE_MAX_PARTITIONS` does.
 */
import { parseArgs } from "node:util";
import { SemanticCache } from "../../src/cache/semantic-cache.ts";
import type { CachedAnswer } from "../../src/cache/cached-answer.ts";

const { values } = parseArgs({
  options: {
    dimensions: { type: "string", default: "1536" },
    "answer-bytes": { type: "string", default: "1000" },
    sizes: { type: "string", default: "10000,100000" },
    lookups: { type: "string", default: "2000" },
    partitions: { type: "string" },
    "max-partitions": { type: "string" },
  },
});
const dimensions = Number(values.dimensions);
const answerBytes = Number(values["answer-bytes"]);
const sizes = values.sizes.split(",").map(Number);
const lookups = Number(values.lookups);

/** A deterministic generator, so two runs measure the same vectors. */
let seed = 42;
const random = (): number => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32;
};
const centres = Array.from({ length: 200 }, () => Float32Array.from({ length: dimensions }, () => random() - 0.5));
function vector(): Float32Array {
  const centre = centres[Math.floor(random() * centres.length)]!;
  const v = Float32Array.from(centre, (value) => value + (random() - 0.5) * 0.4);
  const norm = Math.hypot(...v);
  return v.map((value) => value / norm);
}

/** Each entry's own answer text, as each request's answer is. */
const answer = (i: number): CachedAnswer => ({ kind: "json", status: 200, contentType: "application/json", provider: "openai", model: "gpt-4o-mini", body: `${"x".repeat(Math.max(0, answerBytes - 10))}${String(i).padStart(10, "0")}` });
const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const rssMb = (): number => process.memoryUsage().rss / 1e6;

const runtime = process.versions.bun ? `bun ${process.versions.bun}` : `node ${process.version}`;
/** Collects garbage until RSS settles (finalisers free usearch's native memory on a later turn). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    global.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

if (values.partitions !== undefined) {
  const count = Number(values.partitions);
  const maxPartitions = Number(values["max-partitions"] ?? count);
  console.log(`semantic cache partitions: ${count} of one entry each, ${dimensions} dimensions, answers of ${answerBytes} bytes, at most ${maxPartitions} held, ${runtime}`);
  // usearch loaded and one index made before the baseline, so neither is counted.
  const warm = new SemanticCache({ repository: null, maxEntries: 1, maxBytes: Number.MAX_SAFE_INTEGER, maxPartitions: 1 });
  await warm.put({ id: "warm", workspaceId: "w", partition: "warm", scope: "s", vector: vector(), answer: answer(0), logId: null, ttlSeconds: 3600 });
  await settle();
  const before = rssMb();
  const cache = new SemanticCache({ repository: null, maxEntries: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER, maxPartitions });
  for (let i = 0; i < count; i++) {
    await cache.put({ id: `e${i}`, workspaceId: "w", partition: `namespace-${i}`, scope: "s", vector: vector(), answer: answer(i), logId: null, ttlSeconds: 3600 });
  }
  await settle();
  const grown = rssMb() - before;
  const held = cache.partitionCount;
  console.log(
    `${held} partitions held: RSS +${grown.toFixed(1)} MB, ${((grown * 1e6) / held / 1024).toFixed(1)} KiB each; ` +
      `the cache counts ${(cache.bytes / 1e6).toFixed(1)} MB, ${(cache.bytes / held / 1024).toFixed(1)} KiB each`,
  );
  process.exit(0);
}

console.log(`semantic cache index: ${dimensions} dimensions, answers of ${answerBytes} bytes, one partition, ${runtime}`);
for (const size of sizes) {
  global.gc?.();
  const before = rssMb();
  const cache = new SemanticCache({ repository: null, maxEntries: size, maxBytes: Number.MAX_SAFE_INTEGER, maxPartitions: 1 });
  const started = performance.now();
  for (let i = 0; i < size; i++) {
    await cache.put({ id: `e${i}`, workspaceId: "w", partition: "p", scope: i % 2 === 0 ? "s" : "t", vector: vector(), answer: answer(i), logId: null, ttlSeconds: 3600 });
  }
  const fillSeconds = (performance.now() - started) / 1000;
  global.gc?.();
  const grown = rssMb() - before;
  const times: number[] = [];
  let hits = 0;
  for (let i = 0; i < lookups; i++) {
    const query = vector();
    const t0 = performance.now();
    if (cache.lookup("p", "s", query, 0.9)) hits++;
    times.push((performance.now() - t0) * 1000);
  }
  times.sort((a, b) => a - b);
  console.log(
    `${size} entries: filled in ${fillSeconds.toFixed(1)} s; RSS +${grown.toFixed(0)} MB (${((grown * 10_000) / size).toFixed(0)} MB per 10,000; the cache counts ${((cache.bytes / 1e6) * (10_000 / size)).toFixed(0)} MB per 10,000); ` +
      `lookup p50 ${quantile(times, 0.5).toFixed(0)} µs, p99 ${quantile(times, 0.99).toFixed(0)} µs (${hits}/${lookups} found one at 0.9)`,
  );
}
