/**
 * `bun scripts/bench/cache-hit-cpu.ts`: what one exact-match cache hit costs in CPU, with no
 * HTTP server or socket in the way. The gateway is built in this process as `npm start` builds
 * it (its log worker a Bun `Worker`), one request with the bench's cache config fills the cache
 * from a loopback upstream, and then identical requests go through `gateway.app.fetch`, one at a
 * time and 16 in flight. Each phase prints process CPU µs per hit (`process.cpuUsage`, all
 * threads, the log worker's records written) and each thread group's share from /proc.
 * `--profile` runs the same under `bun --cpu-prof` and splits the request thread's sampled time by
 * stage (`stages.ts`' rules, with the pre-cache stages of the pipeline named one by one).
 * Options: `--requests N` (per phase, 20000), `--runs R` (5; the median is printed last);
 * `CACHE_HIT_TOP` (30): how many functions `--profile` lists.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configWith } from "../../src/config.ts";
import { createGateway } from "../../src/gateway.ts";
import type { WorkerLike } from "../../src/logging/worker-log-sink.ts";
import { readThreadCpu, threadCostsByGroup } from "./cpu.ts";
import { selfTimes, type CpuProfile } from "./cpu-profile.ts";
import { chatBody, completionJson } from "./fixtures.ts";
import { repoRoot } from "./processes.ts";
import { REQUEST_THREAD_STAGES, stageTimes } from "./stages.ts";
import { CACHE_CONFIG } from "./targets.ts";

const argument = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
};
const REQUESTS = argument("--requests", 20_000);
const RUNS = argument("--runs", 5);
const PROFILE = process.argv.includes("--profile");
/** Set in the child that `--profile` starts: where it writes its measured window. */
const WINDOW_FILE = process.env.CACHE_HIT_WINDOW_FILE;
const IN_FLIGHT = 16;
const PROFILE_INTERVAL_US = 100;

/** The stages before the cache, one by one, ahead of `stages.ts`' coarser rules. */
const HIT_STAGES = [
  ["config load", /\/src\/(pipeline\/(request-config|storable-config|config-body)|control-plane\/config)/],
  ["experiment join", /\/src\/(experiments\/|pipeline\/experiment-variant)/],
  ["candidates", /\/src\/pipeline\/(routing-plan|route-conditions|virtual-key-lookup|target-resolution|custom-host-base)/],
  ["run limits", /\/src\/(runs\/|records\/run-limits)/],
  ["admission (budgets, rate limits)", /\/src\/spend\//],
  ["guardrail load", /\/src\/(guardrails\/|pipeline\/guardrail-stage)/],
  ["cache key", /\/src\/cache\/cache-key/],
  ["cache lookup and replay", /\/src\/cache\//],
  ...REQUEST_THREAD_STAGES,
] as const;

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const cpuUs = (): number => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

if (PROFILE && !WINDOW_FILE) {
  profileInChild();
} else {
  await measure();
}

async function measure(): Promise<void> {
  const upstream = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(completionJson, { headers: { "content-type": "application/json" } }) });
  const dataDir = mkdtempSync(join(tmpdir(), "cache-hit-cpu-"));
  const adminKey = `bench-admin-${randomBytes(12).toString("hex")}`;
  const config = configWith({
    GATEWAY_DATABASE_URL: `file:${join(dataDir, "bench.db")}`,
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_ADMIN_KEY: adminKey,
    GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    GATEWAY_QUIET: true,
    GATEWAY_TRUSTED_CUSTOM_HOSTS: ["127.0.0.1"],
  });
  const gateway = await createGateway(config, { startLogWorker: () => new Worker(new URL("../../src/logging/log-store-worker.ts", import.meta.url)) as unknown as WorkerLike });
  const headers = {
    "content-type": "application/json",
    "x-gateway-api-key": adminKey,
    "x-gateway-provider": "openai",
    "x-gateway-custom-host": `http://127.0.0.1:${upstream.port}/v1`,
    "x-gateway-config": CACHE_CONFIG,
    authorization: "Bearer sk-bench",
    // As a client over HTTP sends it: a body of declared length is read on the runtime's buffered path.
    "content-length": String(Buffer.byteLength(chatBody)),
  };
  const hit = async (): Promise<string | null> => {
    const response = await gateway.app.fetch(new Request("http://gateway.local/v1/chat/completions", { method: "POST", headers, body: chatBody }));
    await response.arrayBuffer();
    return response.headers.get("x-gateway-cache-status");
  };
  const first = await hit();
  const second = await hit();
  if (first !== "MISS" || second !== "HIT") throw new Error(`cache-hit-cpu: expected MISS then HIT, got ${first} then ${second}`);

  let missed = 0;
  const counted = async (): Promise<void> => {
    if ((await hit()) !== "HIT") missed += 1;
  };
  const sequential = async (): Promise<void> => {
    for (let i = 0; i < REQUESTS; i += 1) await counted();
  };
  const concurrent = async (): Promise<void> => {
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < REQUESTS) {
        next += 1;
        await counted();
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  };
  const phases = { sequential, [`${IN_FLIGHT} in flight`]: concurrent };
  // Warm-up: the JIT, the log worker and the store's pages.
  for (const run of Object.values(phases)) await run();
  await gateway.deps.logWriter.flush();

  const totals: Record<string, number[]> = {};
  const window = { fromUs: 0, toUs: 0 };
  for (let round = 0; round < RUNS; round += 1) {
    for (const [name, run] of Object.entries(phases)) {
      Bun.gc(true);
      const threadsBefore = readThreadCpu(process.pid);
      const before = cpuUs();
      if (window.fromUs === 0) window.fromUs = (performance.timeOrigin + performance.now()) * 1000;
      await run();
      await gateway.deps.logWriter.flush();
      const perHit = (cpuUs() - before) / REQUESTS;
      const groups = threadCostsByGroup(threadsBefore, readThreadCpu(process.pid), REQUESTS);
      (totals[name] ??= []).push(perHit);
      const split = Object.entries(groups)
        .filter(([, us]) => us > 0.05)
        .sort((a, b) => b[1] - a[1])
        .map(([group, us]) => `${group} ${us.toFixed(1)}`)
        .join(", ");
      console.log(`run ${round + 1} ${name.padEnd(12)} ${perHit.toFixed(1).padStart(6)} µs CPU per hit  (${split})`);
    }
  }
  window.toUs = (performance.timeOrigin + performance.now()) * 1000;
  if (missed > 0) throw new Error(`cache-hit-cpu: ${missed} requests were not cache hits`);
  for (const [name, values] of Object.entries(totals)) console.log(`median ${name.padEnd(12)} ${median(values).toFixed(1).padStart(6)} µs CPU per hit over ${values.length} runs of ${REQUESTS}`);
  if (WINDOW_FILE) writeFileSync(WINDOW_FILE, JSON.stringify({ ...window, requests: REQUESTS * RUNS * Object.keys(phases).length }));

  await gateway.drain();
  upstream.stop(true);
  rmSync(dataDir, { recursive: true, force: true });
}

/** Runs the measurement again under Bun's profiler and splits its measured window by stage. */
function profileInChild(): void {
  const dir = mkdtempSync(join(tmpdir(), "cache-hit-profile-"));
  mkdirSync(dir, { recursive: true });
  const windowFile = join(dir, "window.json");
  const args = process.argv.slice(2).filter((arg) => arg !== "--profile");
  const child = spawnSync(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${PROFILE_INTERVAL_US}`, import.meta.path, ...args], {
    env: { ...process.env, CACHE_HIT_WINDOW_FILE: windowFile },
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (child.status !== 0) throw new Error(`cache-hit-cpu: the profiled run failed (${child.status})`);
  const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"));
  if (!file) throw new Error("cache-hit-cpu: the profiled run wrote no .cpuprofile");
  const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as CpuProfile;
  const { requests, ...window } = JSON.parse(readFileSync(windowFile, "utf8")) as { fromUs: number; toUs: number; requests: number };
  console.log(`\nrequest thread, sampled µs per hit by stage (every ${PROFILE_INTERVAL_US} µs, ${requests} hits; the profiler's own cost included):`);
  for (const cost of stageTimes(profile, window, { intervalUs: PROFILE_INTERVAL_US, requests, rules: HIT_STAGES })) {
    console.log(`  ${cost.stage.padEnd(48)} ${cost.usPerRequest.toFixed(2).padStart(7)}  ${cost.percent.toFixed(1).padStart(5)}%`);
  }
  const summary = selfTimes(profile, window, { intervalUs: PROFILE_INTERVAL_US, root: repoRoot });
  console.log("\ntop functions by self time, µs per hit:");
  for (const cost of summary.functions.slice(0, Number(process.env.CACHE_HIT_TOP ?? 30))) console.log(`  ${(cost.selfUs / requests).toFixed(2).padStart(6)}  ${cost.name} ${cost.location}`);
  rmSync(dir, { recursive: true, force: true });
}
