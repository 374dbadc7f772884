import { describe, expect, it } from "vitest";
import type { CachedAnswer } from "./cached-answer.ts";
import { SemanticCache, type SemanticChange } from "./semantic-cache.ts";
import { SemanticIndex } from "./semantic-index.ts";
import { chatSemanticSplit, completionSemanticSplit, responsesSemanticSplit } from "./semantic-split.ts";

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
    expect(index.bytes).toBe(bytes - 2 * SemanticIndex.bytesPerVector(16));
    expect(index.search(vectorNear(3), 0.9, () => true)).toMatchObject({ key: 3 });
  });

  it("looks past refused near neighbours for an accepted one", () => {
    const index = new SemanticIndex(16);
    // Twenty entries nearly the same as the query, only the last accepted.
    for (let key = 1; key <= 20; key++) index.add(key, vectorNear(0, key / 1000));
    const found = index.search(vectorNear(0), 0.9, (key) => key === 20);
    expect(found?.key).toBe(20);
  });
});

describe("SemanticCache", () => {
  const put = (cache: SemanticCache, id: string, vector: Float32Array, extra: Partial<Parameters<SemanticCache["put"]>[0]> = {}) =>
    cache.put({ id, workspaceId: "w1", partition: "p", scope: "s", vector, answer: answer(id), logId: `log-${id}`, ttlSeconds: 60, ...extra });

  it("serves only the same partition and scope, and nothing expired", async () => {
    let now = 1_000;
    const cache = new SemanticCache({ repository: null, maxEntries: 10, maxBytes: 1e9, now: () => now });
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
    const cache = new SemanticCache({ repository, maxEntries: 2, maxBytes: 1e9 });
    cache.onChange((change) => changes.push(change));
    await put(cache, "a", vectorNear(1));
    await put(cache, "b", vectorNear(2));
    await put(cache, "x", vectorNear(3), { workspaceId: "w2" });
    await put(cache, "c", vectorNear(4));
    expect(cache.size).toBe(3);
    expect(cache.lookup("p", "s", vectorNear(1), 0.95)).toBeNull();
    expect(cache.lookup("p", "s", vectorNear(2), 0.95)?.entry.id).toBe("b");
    expect(removed).toEqual([["a"]]);
    expect(changes).toContainEqual({ kind: "delete", ids: ["a"] });
    expect(changes).toContainEqual({ kind: "put", id: "c" });

    const small = new SemanticCache({ repository: null, maxEntries: 100, maxBytes: 3_000 });
    await small.put({ id: "big1", workspaceId: "w", partition: "p", scope: "s", vector: vectorNear(1), answer: answer("x".repeat(500)), logId: null, ttlSeconds: 60 });
    await small.put({ id: "big2", workspaceId: "w", partition: "p", scope: "s", vector: vectorNear(2), answer: answer("x".repeat(500)), logId: null, ttlSeconds: 60 });
    expect(small.size).toBe(1);
    expect(small.bytes).toBeLessThanOrEqual(3_000);
  });

  it("replaces an entry stored again under its id (a refresh)", async () => {
    const cache = new SemanticCache({ repository: null, maxEntries: 10, maxBytes: 1e9 });
    await put(cache, "a", vectorNear(1));
    await cache.put({ id: "a", workspaceId: "w1", partition: "p", scope: "s", vector: vectorNear(1), answer: answer("fresh"), logId: "log-fresh", ttlSeconds: 60 });
    expect(cache.size).toBe(1);
    expect(cache.lookup("p", "s", vectorNear(1), 0.95)?.entry.logId).toBe("log-fresh");
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
