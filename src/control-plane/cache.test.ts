import { describe, expect, it } from "vitest";
import { ControlPlaneCache } from "./cache.ts";

describe("ControlPlaneCache", () => {
  it("serves an expired entry when the reload fails or hangs, and the fresh value once the store answers", async () => {
    let now = 0;
    const cache = new ControlPlaneCache(1000, () => now);
    expect(await cache.get("config", "ws", "a", async () => "v1")).toBe("v1");
    now = 2000;
    expect(await cache.get("config", "ws", "a", () => Promise.reject(new Error("store down")))).toBe("v1");
    const started = Date.now();
    expect(await cache.get("config", "ws", "a", () => new Promise<string>(() => undefined))).toBe("v1");
    expect(Date.now() - started).toBeLessThan(3000);
    await expect(cache.get("config", "ws", "never-loaded", () => Promise.reject(new Error("store down")))).rejects.toThrow("store down");
    // The hung load is still in flight and shared; once it is gone a reload answers.
    cache.forgetHere("config", "ws", "a");
    expect(await cache.get("config", "ws", "a", async () => "v2")).toBe("v2");
  });

  it("loads once, serves from memory until the TTL, then reloads", async () => {
    let now = 0;
    const cache = new ControlPlaneCache(1000, () => now);
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get("config", "ws", "a", load)).toBe(1);
    expect(await cache.get("config", "ws", "a", load)).toBe(1);
    now = 1001;
    expect(await cache.get("config", "ws", "a", load)).toBe(2);
  });

  it("keeps workspaces and kinds apart, and caches misses", async () => {
    const cache = new ControlPlaneCache(1000);
    expect(await cache.get("config", "ws-a", "x", async () => "A")).toBe("A");
    expect(await cache.get("config", "ws-b", "x", async () => "B")).toBe("B");
    expect(await cache.get("guardrail", "ws-a", "x", async () => "G")).toBe("G");
    let loads = 0;
    const missing = async () => {
      loads += 1;
      return undefined;
    };
    await cache.get("virtual-key", "ws-a", "gone", missing);
    await cache.get("virtual-key", "ws-a", "gone", missing);
    expect(loads).toBe(1);
  });

  it("forget makes the next read load again, and a load overtaken by forget is not kept", async () => {
    const cache = new ControlPlaneCache(60_000);
    let value = "old";
    expect(await cache.get("prompt", "ws", "p", async () => value)).toBe("old");
    value = "new";
    cache.forget("prompt", "ws", "p");
    expect(await cache.get("prompt", "ws", "p", async () => value)).toBe("new");

    let release: (v: string) => void = () => undefined;
    const slow = cache.get("prompt", "ws", "q", () => new Promise<string>((resolve) => (release = resolve)));
    cache.forget("prompt", "ws", "q");
    release("stale");
    expect(await slow).toBe("stale");
    expect(await cache.get("prompt", "ws", "q", async () => "fresh")).toBe("fresh");
  });

  it("shares one load between concurrent misses", async () => {
    const cache = new ControlPlaneCache(1000);
    let loads = 0;
    const load = async () => {
      loads += 1;
      await new Promise((resolve) => setTimeout(resolve, 10));
      return "v";
    };
    expect(await Promise.all([cache.get("config", "w", "k", load), cache.get("config", "w", "k", load)])).toEqual(["v", "v"]);
    expect(loads).toBe(1);
  });
});
