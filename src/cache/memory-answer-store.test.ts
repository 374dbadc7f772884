import { describe, expect, it } from "vitest";
import type { CachedAnswer } from "./cached-answer.ts";
import { MemoryAnswerStore } from "./memory-answer-store.ts";

const answer = (body: string): CachedAnswer => ({ kind: "json", status: 200, contentType: "application/json", provider: "openai", model: "m", body });

describe("MemoryAnswerStore", () => {
  it("keeps at most maxEntries, dropping the least recently used first", async () => {
    const store = new MemoryAnswerStore({ maxEntries: 2, maxBytes: 1_000_000 });
    await store.set("a", answer("A"), 60);
    await store.set("b", answer("B"), 60);
    expect(await store.get("a")).not.toBeNull(); // a is now the most recently used
    await store.set("c", answer("C"), 60);
    expect(await store.get("b")).toBeNull();
    expect((await store.get("a"))?.kind).toBe("json");
    expect(await store.get("c")).not.toBeNull();
    expect(store.size).toBe(2);
  });

  it("keeps at most maxBytes, and never an entry larger than the whole store", async () => {
    const store = new MemoryAnswerStore({ maxEntries: 100, maxBytes: 2 * (256 + 2 * 100) });
    await store.set("a", answer("x".repeat(100)), 60);
    await store.set("b", answer("y".repeat(100)), 60);
    await store.set("c", answer("z".repeat(100)), 60);
    expect(await store.get("a")).toBeNull();
    expect(store.size).toBe(2);
    expect(store.totalBytes).toBeLessThanOrEqual(2 * (256 + 200));
    await store.set("huge", answer("h".repeat(10_000)), 60);
    expect(await store.get("huge")).toBeNull();
    expect(store.size).toBe(2);
  });

  it("expires an entry after its max_age and forgets its bytes", async () => {
    let now = 1_000;
    const store = new MemoryAnswerStore({ maxEntries: 10, maxBytes: 1_000_000 }, () => now);
    await store.set("a", answer("A"), 5);
    now += 4_999;
    expect(await store.get("a")).not.toBeNull();
    now += 1;
    expect(await store.get("a")).toBeNull();
    expect(store.totalBytes).toBe(0);
  });

  it("replaces an entry stored again under its key", async () => {
    const store = new MemoryAnswerStore({ maxEntries: 10, maxBytes: 1_000_000 });
    await store.set("a", answer("old"), 60);
    await store.set("a", answer("new"), 60);
    expect(await store.get("a")).toMatchObject({ body: "new" });
    expect(store.size).toBe(1);
  });
});
