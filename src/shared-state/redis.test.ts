import { afterEach, describe, expect, it, vi } from "vitest";
import { connectRedis, type SharedRedis } from "./redis.ts";
import { testRedisUrl } from "../../test/support/services.ts";

const opened: SharedRedis[] = [];
afterEach(async () => {
  for (const redis of opened.splice(0)) await redis.close();
  vi.restoreAllMocks();
});

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("connectRedis", () => {
  it("connects to the Redis on this machine and runs commands", async () => {
    const redis = await connectRedis(testRedisUrl());
    opened.push(redis);
    expect(await redis.ready(3000)).toBe(true);
    expect(redis.available).toBe(true);
    const key = `gateway-test:${process.pid}:${Date.now()}`;
    await redis.client.set(key, "1", "PX", 5_000);
    expect(await redis.client.incr(key)).toBe(2);
  });

  it("never throws for a Redis that is down: it reports once, without the URL's password, and fails commands fast", async () => {
    const printed = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const redis = await connectRedis("redis://:hunter2-secret@127.0.0.1:1");
    opened.push(redis);
    expect(await redis.ready(300)).toBe(false);
    await until(() => printed.mock.calls.length > 0);
    expect(redis.available).toBe(false);
    const started = Date.now();
    await expect(redis.client.get("x")).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(printed.mock.calls.flat().join(" ")).not.toContain("hunter2");
    expect(printed.mock.calls.length).toBe(1);
  });
});
