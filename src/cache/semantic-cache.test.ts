import { describe, expect, it } from "vitest";
import type { CachedAnswer } from "./cached-answer.ts";
import { SemanticCache, type SemanticChange } from "./semantic-cache.ts";
import type { SemanticCacheRepository, StoredSemanticEntry } from "../store/semantic-cache-repository.ts";
import { SemanticIndex } from "./semantic-index.ts";
import { chatSemanticSplit } from "../families/chat/index.ts";
import { responsesSemanticSplit } from "../families/responses/index.ts";
import { completionOperation } from "../routes/createCompletion.ts";

const completionSemanticSplit = completionOperation.semantic!;

/** A unit vector close to axis `axis` of `dims`, tilted by `tilt` towards the next axis. */
function vectorNear(axis: number, tilt = 0, dims = 16): Float32Array {
  const vector = new Float32Array(dims);
  vector[axis % dims] = 1;
  vector[(axis + 1) % dims] = tilt;
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}

const answer = (body: string): CachedAnswer => ({ kind: "json", status: 200, contentType: "application/json", provider: "openai", model: "m", body });

describe("SemanticIndex", () => {
  it("finds the nearest accepted key above the least similarity, across segments", () => {
    const index = new SemanticIndex(16, 4);
    for (let key = 1; key <= 10; key++) index.add(key, vectorNear(key));
    expect(index.size).toBe(10);
    expect(index.search(vectorNear(7, 0.1), 0.9, () => true)).toMatchObject({ key: 7 });
    expect(index.search(vectorNear(7, 0.1), 0.9, (key) => key !== 7)).toBeNull();
    // Nothing that similar: a tilt of 1 is 0.71 from either axis.
    expect(index.search(vectorNear(7, 1), 0.9, () => true)).toBeNull();
  });

  it("never returns a removed key, and drops a segment once nothing in it is live", () => {
    const index = new SemanticIndex(16, 2);
    index.add(1, vectorNear(1));
    index.add(2, vectorNear(2));
    index.add(3, vectorNear(3));
    const bytes = index.bytes;
    index.remove(1);
    expect(index.search(vectorNear(1), 0.5, () => true)).toBeNull();
    expect(index.bytes).toBe(bytes);
    index.remove(2);
    expect(index.bytes).toBe(bytes - 2 * SemanticIndex.bytesPerVector(16) - SemanticIndex.fixedBytesPerSegment(16));
    expect(index.search(vectorNear(3), 0.9, () => true)).toMatchObject({ key: 3 });
  });

  it("looks past refused near neighbours for an accepted one", () => {
    const index = new SemanticIndex(16);
    // Twenty entries nearly the same as the query, only the last accepted.
    for (let key = 1; key <= 20; key++) index.add(key, vectorNear(0, key / 1000));
    const found = index.search(vectorNear(0), 0.9, (key) => key === 20);
    expect(found?.key).toBe(20);
  });

  it("refuses a vector whose components overflow its float16, which would score as identical to every other", () => {
    const index = new SemanticIndex(16);
    const poisoned = vectorNear(0);
    poisoned[3] = 1e5;
    expect(() => index.add(1, poisoned)).toThrow(RangeError);
    index.add(2, vectorNear(5));
    expect(index.size).toBe(1);
    expect(index.search(vectorNear(7), 0.95, () => true)).toBeNull();
    expect(index.search(poisoned, 0.5, () => true)).toBeNull();
    // A sound vector of any length is scaled to unit length: a thousand times one is the same direction.
    const found = index.search(vectorNear(5).map((value) => value * 1_000), 0.95, () => true);
    expect(found?.key).toBe(2);
    expect(found?.similarity).toBeCloseTo(1, 3);
  });

  it("in float32, holds a component of 1e5 and refuses one of 1e39", () => {
    const index = new SemanticIndex(16, 65_536, "f32");
    const large = vectorNear(2).map((value) => value * 1e5);
    index.add(1, large);
    expect(index.search(vectorNear(2), 0.99, () => true)?.key).toBe(1);
    // As the embedding answer's float64 numbers hold it.
    const overflowing = Float64Array.from(vectorNear(4));
    overflowing[0] = 1e39;
    expect(index.check(overflowing)).toMatchObject({ ok: false, reason: expect.stringMatching(/^component 0 \(1e\+39\) is not a finite float32/) });
    expect(() => index.add(2, overflowing)).toThrow(RangeError);
    expect(index.search(overflowing, 0.5, () => true)).toBeNull();
  });

  it("counts each segment's fixed cost in its bytes", () => {
    const index = new SemanticIndex(16, 2);
    expect(index.bytes).toBe(0);
    index.add(1, vectorNear(1));
    expect(index.fixedBytes).toBe(SemanticIndex.fixedBytesPerSegment(16));
    expect(index.bytes).toBe(SemanticIndex.fixedBytesPerSegment(16) + SemanticIndex.bytesPerVector(16));
    index.add(2, vectorNear(2));
    index.add(3, vectorNear(3));
    expect(index.fixedBytes).toBe(2 * SemanticIndex.fixedBytesPerSegment(16));
    index.remove(1);
    index.remove(2);
    expect(index.fixedBytes).toBe(SemanticIndex.fixedBytesPerSegment(16));
  });
});

describe("SemanticCache", () => {
  const put = (cache: SemanticCache, id: string, vector: Float32Array, extra: Partial<Parameters<SemanticCache["put"]>[0]> = {}) =>
    cache.put({ id, workspaceId: "w1", partition: "p", scope: "s", vector, answer: answer(id), logId: `log-${id}`, ttlSeconds: 60, ...extra });

  it("serves only the same partition and scope, and nothing expired", async () => {
    let now = 1_000;
    const cache = new SemanticCache({ repository: null, maxEntries: 10, maxBytes: 1e9, maxPartitions: 10, now: () => now });
    await put(cache, "a", vectorNear(1), { ttlSeconds: 5 });
    expect(cache.lookup("p", "s", vectorNear(1, 0.05), 0.95)).toMatchObject({ entry: { id: "a", logId: "log-a" } });
    expect(cache.lookup("p", "other scope", vectorNear(1), 0.95)).toBeNull();
    expect(cache.lookup("other partition", "s", vectorNear(1), 0.95)).toBeNull();
    now += 5_000;
    expect(cache.lookup("p", "s", vectorNear(1), 0.95)).toBeNull();
    await cache.sweep();
    expect(cache.size).toBe(0);
  });

  it("keeps each workspace within its entries and bytes, evicting the oldest and announcing it", async () => {
    const changes: SemanticChange[] = [];
    const removed: string[][] = [];
    const repository = {
      put: async () => undefined,
      get: async () => null,
      live: async () => [],
      delete: async (ids: readonly string[]) => void removed.push([...ids]),
      deleteExpired: async () => 0,
    };
    const cache = new SemanticCache({ repository, maxEntries: 2, maxBytes: 1e9, maxPartitions: 10 });
    cache.onChange((change) => changes.push(change));
    await put(cache, "a", vectorNear(1));
    await put(cache, "b", vectorNear(2));
    await put(cache, "x", vectorNear(3), { workspaceId: "w2", partition: "q" });
    await put(cache, "c", vectorNear(4));
    expect(cache.size).toBe(3);
    expect(cache.lookup("p", "s", vectorNear(1), 0.95)).toBeNull();
    expect(cache.lookup("p", "s", vectorNear(2), 0.95)?.entry.id).toBe("b");
    expect(removed).toEqual([["a"]]);
    expect(changes).toContainEqual({ kind: "delete", ids: ["a"] });
    expect(changes).toContainEqual({ kind: "put", id: "c" });

    const small = new SemanticCache({ repository: null, maxEntries: 100, maxBytes: 3_000 + SemanticIndex.fixedBytesPerSegment(16), maxPartitions: 10 });
    await small.put({ id: "big1", workspaceId: "w", partition: "p", scope: "s", vector: vectorNear(1), answer: answer("x".repeat(500)), logId: null, ttlSeconds: 60 });
    await small.put({ id: "big2", workspaceId: "w", partition: "p", scope: "s", vector: vectorNear(2), answer: answer("x".repeat(500)), logId: null, ttlSeconds: 60 });
    expect(small.size).toBe(1);
    expect(small.bytes).toBeLessThanOrEqual(3_000 + SemanticIndex.fixedBytesPerSegment(16));
  });

  it("replaces an entry stored again under its id (a refresh)", async () => {
    const cache = new SemanticCache({ repository: null, maxEntries: 10, maxBytes: 1e9, maxPartitions: 10 });
    await put(cache, "a", vectorNear(1));
    await cache.put({ id: "a", workspaceId: "w1", partition: "p", scope: "s", vector: vectorNear(1), answer: answer("fresh"), logId: "log-fresh", ttlSeconds: 60 });
    expect(cache.size).toBe(1);
    expect(cache.lookup("p", "s", vectorNear(1), 0.95)?.entry.logId).toBe("log-fresh");
  });

  /** A repository that remembers what it was given, and serves `rows` to `load`. */
  function recordingRepository(rows: StoredSemanticEntry[] = []) {
    const puts: StoredSemanticEntry[] = [];
    const deletes: string[][] = [];
    const repository: SemanticCacheRepository = {
      put: async (entry) => void puts.push(entry),
      get: async () => null,
      live: async (_now, after) => (after ? [] : rows),
      delete: async (ids) => void deletes.push([...ids]),
      deleteExpired: async () => 0,
    };
    return { repository, puts, deletes };
  }

  it("refuses a vector its index cannot hold, for lookup and for insert, and keeps nothing of it", async () => {
    const { repository, puts } = recordingRepository();
    const cache = new SemanticCache({ repository, maxEntries: 10, maxBytes: 1e9, maxPartitions: 10 });
    const poisoned = vectorNear(0);
    poisoned[3] = 1e5;
    expect(cache.check("p", poisoned)).toEqual({ ok: false, reason: "component 3 (100000) is not a finite float16 (largest 65504)" });
    await put(cache, "poisoned", poisoned);
    expect([cache.size, cache.partitionCount, cache.bytes, puts.length]).toEqual([0, 0, 0, 0]);

    // A sound entry, given at another length: kept at unit length, here and in the store.
    await put(cache, "sound", vectorNear(5).map((value) => value * 300));
    expect(cache.size).toBe(1);
    expect(Math.hypot(...puts[0]!.vector)).toBeCloseTo(1, 5);
    expect(cache.lookup("p", "s", poisoned, 0.5)).toBeNull();
    expect(cache.lookup("p", "s", vectorNear(7), 0.95)).toBeNull();
    expect(cache.lookup("p", "s", vectorNear(5), 0.95)?.entry.id).toBe("sound");

    // The partition's index has 16 dimensions: another count is refused, and the entry stays.
    expect(cache.check("p", new Float64Array(8).fill(1))).toEqual({ ok: false, reason: "it has 8 dimensions, the partition's index 16" });
    await put(cache, "narrow", new Float32Array(8).fill(1));
    expect(cache.size).toBe(1);
    expect(puts.map((entry) => entry.id)).toEqual(["sound"]);
  });

  it("loads only the stored entries whose vectors it can use", async () => {
    const row = (id: string, vector: Float32Array): StoredSemanticEntry => ({
      id, workspaceId: "w1", partition: "p", scope: "s", vector, answer: JSON.stringify(answer(id)), logId: null, createdAt: Date.now(), expiresAt: Date.now() + 60_000,
    });
    const poisoned = vectorNear(2);
    poisoned[0] = Infinity;
    const { repository } = recordingRepository([row("bad", poisoned), row("zero", new Float32Array(16)), row("good", vectorNear(1))]);
    const cache = new SemanticCache({ repository, maxEntries: 10, maxBytes: 1e9, maxPartitions: 10 });
    expect(await cache.load()).toBe(1);
    expect(cache.size).toBe(1);
    expect(cache.lookup("p", "s", vectorNear(1), 0.95)?.entry.id).toBe("good");
  });

  it("counts each partition's index in the bytes, and holds at most maxPartitions per workspace until one expires", async () => {
    let now = 1_000;
    const { repository, puts } = recordingRepository();
    const cache = new SemanticCache({ repository, maxEntries: 100, maxBytes: 1e9, maxPartitions: 2, now: () => now });
    await put(cache, "a", vectorNear(1), { partition: "p1", ttlSeconds: 10 });
    const one = cache.bytes;
    expect(one).toBeGreaterThan(SemanticIndex.fixedBytesPerSegment(16));
    await put(cache, "a2", vectorNear(2), { partition: "p1", ttlSeconds: 10 });
    // A second entry in the partition costs its entry, not another index.
    expect(cache.bytes - one).toBeLessThan(SemanticIndex.fixedBytesPerSegment(16));
    await put(cache, "b", vectorNear(1), { partition: "p2", ttlSeconds: 60 });
    expect(cache.partitionCount).toBe(2);

    expect(cache.partitionRefusal("w1", "p1")).toBeNull();
    expect(cache.partitionRefusal("w1", "p3")).toMatch(/^the workspace already has 2 partitions/);
    expect(cache.partitionRefusal("w2", "q1")).toBeNull();
    await put(cache, "c", vectorNear(1), { partition: "p3" });
    expect(cache.lookup("p3", "s", vectorNear(1), 0.95)).toBeNull();
    expect(puts.map((entry) => entry.id)).toEqual(["a", "a2", "b"]);
    await put(cache, "x", vectorNear(1), { workspaceId: "w2", partition: "q1" });
    expect(cache.partitionCount).toBe(3);

    // Once p1's entries have all expired it makes room, before any sweep.
    now += 10_000;
    expect(cache.partitionRefusal("w1", "p3")).toBeNull();
    await put(cache, "c", vectorNear(1), { partition: "p3" });
    expect(cache.lookup("p3", "s", vectorNear(1), 0.95)?.entry.id).toBe("c");
    expect(cache.partitionCount).toBe(3);
    expect(cache.size).toBe(3);
  });

  it("evicts the least recently used partition first, whole with its index, and announces it", async () => {
    const { repository, deletes } = recordingRepository();
    const changes: SemanticChange[] = [];
    const maxBytes = Math.floor(2.5 * SemanticIndex.fixedBytesPerSegment(16));
    const cache = new SemanticCache({ repository, maxEntries: 100, maxBytes, maxPartitions: 100 });
    cache.onChange((change) => changes.push(change));
    await put(cache, "a", vectorNear(1), { partition: "p1" });
    await put(cache, "b", vectorNear(1), { partition: "p2" });
    const two = cache.bytes;
    // p1 is used again: p2 is now the least recently used.
    expect(cache.lookup("p1", "s", vectorNear(1), 0.95)?.entry.id).toBe("a");
    await put(cache, "c", vectorNear(1), { partition: "p3" });
    expect(cache.partitionCount).toBe(2);
    expect(cache.bytes).toBe(two);
    expect(cache.bytes).toBeLessThanOrEqual(maxBytes);
    expect(cache.lookup("p2", "s", vectorNear(1), 0.5)).toBeNull();
    expect(cache.lookup("p1", "s", vectorNear(1), 0.95)?.entry.id).toBe("a");
    expect(deletes).toEqual([["b"]]);
    expect(changes).toContainEqual({ kind: "delete", ids: ["b"] });
  });

  it("drops every byte it counted once its entries are gone", async () => {
    let now = 1_000;
    const cache = new SemanticCache({ repository: null, maxEntries: 100, maxBytes: 1e9, maxPartitions: 100, segmentSize: 2, now: () => now });
    for (let i = 0; i < 5; i++) await put(cache, `e${i}`, vectorNear(i), { partition: `p${i % 2}`, ttlSeconds: 1 + i });
    expect(cache.bytes).toBeGreaterThan(0);
    now += 3_500;
    await cache.sweep();
    expect(cache.size).toBe(2);
    now += 10_000;
    await cache.sweep();
    expect([cache.size, cache.partitionCount, cache.bytes]).toEqual([0, 0, 0]);
  });
});

describe("semantic splits", () => {
  it("take the last user turn's text out of chat, completions and Responses bodies", () => {
    const chat = chatSemanticSplit({ model: "m", messages: [{ role: "system", content: "Be brief." }, { role: "user", content: [{ type: "text", text: "Hello" }, { type: "text", text: "there" }] }] });
    expect(chat?.text).toBe("Hello\nthere");
    const other = chatSemanticSplit({ model: "m", messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Something else" }] });
    expect(other?.rest).toEqual(chat?.rest);
    expect(completionSemanticSplit({ model: "m", prompt: "Once upon a time" })?.text).toBe("Once upon a time");
    expect(responsesSemanticSplit({ model: "m", input: "Hi", instructions: "x" })).toMatchObject({ text: "Hi", rest: { instructions: "x" } });
    expect(responsesSemanticSplit({ model: "m", input: [{ role: "user", content: [{ type: "input_text", text: "Hi" }] }] })?.text).toBe("Hi");
  });

  it("refuse a last turn that is not a user's plain text", () => {
    expect(chatSemanticSplit({ model: "m", messages: [{ role: "user", content: "q" }, { role: "assistant", content: "a" }] })).toBeNull();
    expect(chatSemanticSplit({ model: "m", messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://x/y.png" } }] }] })).toBeNull();
    expect(chatSemanticSplit({ model: "m", messages: [{ role: "user", content: "   " }] })).toBeNull();
    expect(completionSemanticSplit({ model: "m", prompt: ["a", "b"] })).toBeNull();
    expect(responsesSemanticSplit({ model: "m", input: [{ type: "function_call_output", call_id: "c", output: "{}" }] })).toBeNull();
  });
});
