import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { connectRedis, type SharedRedis } from "../shared-state/redis.ts";
import { SPEND_EPOCH_KEY } from "../shared-state/spend-scripts.ts";
import { freePort } from "../../test/support/harness.ts";
import { FailoverCounters } from "./failover-counters.ts";
import { MemoryCounters } from "./memory-counters.ts";
import { bucketField, budgetKey as budgetKeyOf, type MeteredKey, type MeterPlan, type RaiseEntry, type SpendCounters } from "./meter-plan.ts";
import { periodBounds } from "./periods.ts";
import { RedisCounters } from "./redis-counters.ts";
import { windowSlots } from "./windows.ts";
import { testRedisUrl } from "../../test/support/services.ts";

const NOW = Date.parse("2026-03-10T10:17:42Z");
const noLimit = { requestsPerMinute: null, requestsPerHour: null, requestsPerDay: null, tokensPerMinute: null, tokensPerHour: null, tokensPerDay: null };

function budgetKey(id: string, limitUnits: number, reserveUnits: number): MeteredKey {
  return { kind: "virtual_key", id, label: `virtual key "${id}"`, budget: { limitUnits, periodStart: "none", resetsAt: null, rolling: null, alertThresholds: [], reserveUnits }, windows: [] };
}

function plan(keys: MeteredKey[], nowMs = NOW, ttlMs = 60_000): MeterPlan {
  return { reservationId: randomUUID(), nowMs, expiresAtMs: nowMs + ttlMs, keys };
}

const redisClients: Redis[] = [];
beforeAll(async () => {
  const client = new Redis(testRedisUrl());
  redisClients.push(client);
  await client.set(SPEND_EPOCH_KEY, "counters-test", "NX");
});
afterAll(() => {
  for (const client of redisClients) client.disconnect();
});

const backends: { name: string; make(): SpendCounters }[] = [
  { name: "memory", make: () => new MemoryCounters(() => NOW) },
  {
    name: "redis",
    make: () => {
      const client = new Redis(testRedisUrl());
      redisClients.push(client);
      return new RedisCounters(client);
    },
  },
];

describe.each(backends)("spend counters ($name)", ({ make }) => {
  it("admits while settled plus reserved spend is under the limit, so concurrent requests overshoot by at most one reservation", async () => {
    const counters = make();
    const id = `vk-${randomUUID()}`;
    // Limit 100, each request reserves 30: three fit under the limit (0, 30, 60 < 100), the fourth starts at 90 < 100, the fifth at 120.
    const plans = Array.from({ length: 6 }, () => plan([budgetKey(id, 100, 30)]));
    const outcomes = await Promise.all(plans.map((each) => counters.reserve(each)));
    expect(outcomes.map((outcome) => outcome.refusal?.reason ?? "admitted")).toEqual(["admitted", "admitted", "admitted", "admitted", "budget", "budget"]);
    expect(outcomes[3]!.counts[0]).toMatchObject({ spentUnits: 0, reservedUnits: 120 });

    // Settling releases each reservation and adds the real cost: 4 × 25 = 100, at the limit.
    for (const admitted of plans.slice(0, 4)) await counters.settle(admitted, [{ units: 25, tokens: 0 }]);
    expect(await counters.spent("virtual_key", id, "none")).toBe(100);
    expect((await counters.reserve(plan([budgetKey(id, 100, 30)]))).refusal).toEqual({ keyIndex: 0, reason: "budget" });
  });

  it("a failed call settles 0 and frees its reservation; settle reports spend before and after", async () => {
    const counters = make();
    const id = `vk-${randomUUID()}`;
    const first = plan([budgetKey(id, 50, 40)]);
    await counters.reserve(first);
    expect((await counters.reserve(plan([budgetKey(id, 50, 40)]))).counts[0]!.reservedUnits).toBe(80);
    const blocked = plan([budgetKey(id, 50, 40)]);
    expect((await counters.reserve(blocked)).refusal?.reason).toBe("budget");
    expect(await counters.settle(first, [{ units: 0, tokens: 0 }])).toEqual([{ beforeUnits: 0, afterUnits: 0 }]);
    const later = plan([budgetKey(id, 50, 40)]);
    expect((await counters.reserve(later)).counts[0]).toEqual({ spentUnits: 0, reservedUnits: 80, windows: [] });
  });

  it("drops a reservation that outlived its expiry (a replica that died never settles)", async () => {
    const counters = make();
    const id = `vk-${randomUUID()}`;
    await counters.reserve(plan([budgetKey(id, 10, 10)], NOW, 1_000));
    expect((await counters.reserve(plan([budgetKey(id, 10, 10)], NOW + 500))).refusal?.reason).toBe("budget");
    expect((await counters.reserve(plan([budgetKey(id, 10, 10)], NOW + 1_000))).refusal).toBeNull();
  });

  it("counts requests per window and refuses the one past the limit; tokens are added at settle and refuse once spent", async () => {
    const counters = make();
    const key: MeteredKey = { kind: "api_key", id: `key-${randomUUID()}`, label: "gateway key", budget: null, windows: windowSlots({ ...noLimit, requestsPerMinute: 2, tokensPerHour: 100 }, Date.now()) };
    const first = plan([key]);
    expect((await counters.reserve(first)).counts[0]!.windows).toEqual([[1, 0], [0, 0]]);
    expect((await counters.reserve(plan([key]))).refusal).toBeNull();
    expect((await counters.reserve(plan([key]))).refusal).toEqual({ keyIndex: 0, reason: "requests", windowIndex: 0 });

    const hourOnly: MeteredKey = { ...key, windows: [key.windows[1]!] };
    await counters.settle(first, [{ units: 0, tokens: 100 }]);
    expect((await counters.reserve(plan([hourOnly]))).refusal).toEqual({ keyIndex: 0, reason: "tokens", windowIndex: 0 });
  });

  it("refuses as a whole: a key that refuses leaves the other keys' counters untouched", async () => {
    const counters = make();
    const open = budgetKey(`vk-${randomUUID()}`, 1_000, 10);
    const spent = budgetKey(`vk-${randomUUID()}`, 5, 10);
    await counters.seed([seedEntry(spent.id, 5)]);
    const outcome = await counters.reserve(plan([open, spent]));
    expect(outcome.refusal).toEqual({ keyIndex: 1, reason: "budget" });
    expect((await counters.reserve(plan([open]))).counts[0]!.reservedUnits).toBe(10);
  });

  it("seeding raises spend to the stored value and never lowers it", async () => {
    const counters = make();
    const id = `vk-${randomUUID()}`;
    await counters.seed([seedEntry(id, 70)]);
    await counters.seed([seedEntry(id, 20)]);
    expect(await counters.spent("virtual_key", id, "none")).toBe(70);
  });

  it("a rolling window counts the buckets of its last window and forgets older ones", async () => {
    const counters = make();
    const id = `budget-${randomUUID()}`;
    // A window of one hour: buckets of a minute.
    const window = (nowMs: number): MeteredKey => ({ ...rollingKey(id, 100, 10), budget: { ...rollingKey(id, 100, 10).budget!, rolling: periodBounds({ type: "rolling", unit: "hour", count: 1 }, nowMs).rolling } });
    const hourAgo = NOW - 3_600_000;
    // Spend settled an hour and a half ago is outside the window; 30 minutes ago, inside. Redis
    // keeps the buckets by its own clock, so they are kept a day from now, not from NOW.
    await counters.raise([
      { key: metered("budget", id), field: bucketField(hourAgo - 1_800_000 - ((hourAgo - 1_800_000) % 60_000)), value: 500, dropAtMs: Date.now() + 86_400_000 },
      { key: metered("budget", id), field: bucketField(NOW - 1_800_000 - ((NOW - 1_800_000) % 60_000)), value: 40, dropAtMs: Date.now() + 86_400_000 },
    ]);
    const admitted = await counters.reserve(plan([window(NOW)]));
    expect(admitted.refusal).toBeNull();
    expect(admitted.counts[0]).toMatchObject({ spentUnits: 40, reservedUnits: 10 });
    expect(await counters.spent("budget", id, "rolling", window(NOW).budget!.rolling!.cutMs)).toBe(40);
  });
});

function rollingKey(id: string, limitUnits: number, reserveUnits: number): MeteredKey {
  return { kind: "budget", id, label: `budget ${id}`, budget: { limitUnits, periodStart: "rolling", resetsAt: null, rolling: null, alertThresholds: [], reserveUnits }, windows: [] };
}

function metered(kind: "budget", id: string): string {
  return budgetKeyOf(kind, id, "rolling");
}

function seedEntry(id: string, units: number): RaiseEntry {
  return { key: budgetKeyOf("virtual_key", id, "none"), field: "spent", value: units, dropAtMs: null };
}

describe("failure policy when Redis is down", () => {
  const lines: string[] = [];
  const opened: SharedRedis[] = [];
  afterAll(async () => {
    for (const redis of opened) await redis.close();
  });

  async function downRedis(): Promise<SharedRedis> {
    const redis = await connectRedis(`redis://127.0.0.1:${await freePort()}`, { quiet: true });
    opened.push(redis);
    return redis;
  }

  it("open: meters in process and says so once in the gateway's log", async () => {
    const redis = await downRedis();
    const counters = new FailoverCounters({ redis, shared: new RedisCounters(redis.client), local: new MemoryCounters(), policy: "open", report: (line) => lines.push(line) });
    const id = `vk-${randomUUID()}`;
    const first = await counters.reserve(plan([budgetKey(id, 10, 10)]));
    expect("outcome" in first && first.outcome.refusal).toBeNull();
    const second = await counters.reserve(plan([budgetKey(id, 10, 10)]));
    expect("outcome" in second && second.outcome.refusal?.reason).toBe("budget");
    expect(lines.filter((line) => line.includes("GATEWAY_REDIS_FAILURE_POLICY=open"))).toHaveLength(1);
  });

  it("closed: refuses with 503 service_unavailable and a clear message", async () => {
    const redis = await downRedis();
    const counters = new FailoverCounters({ redis, shared: new RedisCounters(redis.client), local: new MemoryCounters(), policy: "closed", report: (line) => lines.push(line) });
    const refused = await counters.reserve(plan([budgetKey(`vk-${randomUUID()}`, 10, 1)]));
    expect(refused).toMatchObject({ code: "service_unavailable", status: 503 });
    expect((refused as Error).message).toMatch(/Redis.*cannot be reached.*GATEWAY_REDIS_FAILURE_POLICY=closed/);
  });

  it("a private Redis stopped mid-way: open falls back without crashing, and shares again once it is back", async () => {
    const port = await freePort();
    let server = await startRedisServer(port);
    const redis = await connectRedis(`redis://127.0.0.1:${port}`, { quiet: true });
    opened.push(redis);
    const reported: string[] = [];
    const counters = new FailoverCounters({ redis, shared: new RedisCounters(redis.client), local: new MemoryCounters(), policy: "open", report: (line) => reported.push(line), storedSpend: async () => [] });
    await waitFor(() => redis.available);
    await counters.seed([]);
    const id = `vk-${randomUUID()}`;
    const admitted = await counters.reserve(plan([budgetKey(id, 100, 10)]));
    expect("counters" in admitted && admitted.counters).toBeInstanceOf(RedisCounters);

    await stopRedisServer(server);
    await waitFor(() => !redis.available);
    const during = await counters.reserve(plan([budgetKey(id, 100, 10)]));
    expect("counters" in during && during.counters).toBeInstanceOf(MemoryCounters);
    // The settle of the Redis reservation falls back too, and does not throw.
    if ("counters" in admitted) await counters.settle(admitted.counters, plan([budgetKey(id, 100, 10)]), [{ units: 5, tokens: 0 }]);
    expect(reported.some((line) => line.includes("Redis unusable"))).toBe(true);

    // Restarted empty: metered alone until this replica has seeded it again, then shared.
    server = await startRedisServer(port);
    await waitFor(() => redis.available, 10_000);
    const unseeded = await counters.reserve(plan([budgetKey(id, 100, 10)]));
    expect("counters" in unseeded && unseeded.counters).toBeInstanceOf(MemoryCounters);
    await counters.settled();
    const after = await counters.reserve(plan([budgetKey(id, 100, 10)]));
    expect("counters" in after && after.counters).toBeInstanceOf(RedisCounters);
    expect(reported.at(-1)).toMatch(/reachable again/);
    await stopRedisServer(server);
  }, 30_000);
});

async function startRedisServer(port: number): Promise<ChildProcess> {
  const child = spawn("redis-server", ["--port", String(port), "--save", "", "--appendonly", "no", "--bind", "127.0.0.1"], { stdio: "ignore" });
  const probe = new Redis(`redis://127.0.0.1:${port}`, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on("error", () => undefined);
  await waitFor(async () => probe.connect().then(() => true, () => false));
  probe.disconnect();
  return child;
}

async function stopRedisServer(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
