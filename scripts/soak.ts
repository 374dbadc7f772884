/**
 * Soak (`npm run soak`): the gateway under Bun (as `npm start` runs it) on the embedded store,
 * an aimock upstream, and a steady open-loop rate of mixed traffic for `SOAK_SECONDS` (600).
 * Every few seconds it samples the gateway's RSS, its open file descriptors (/proc/<pid>/fd) and
 * the log queue depth (`gateway_log_queue_depth` from /metrics); after the warm-up it prints
 * each one's least-squares slope per minute, and at the end whether every request was logged.
 * A leak shows as a slope that stays positive run after run, not as one high sample.
 *
 * Settings: SOAK_SECONDS (600), SOAK_RPS (40), SOAK_WARMUP_SECONDS (a fifth of the run, at most
 * 120), SOAK_SAMPLE_SECONDS (5), SOAK_MAX_INFLIGHT (64: past it a tick is skipped and counted).
 */
import { LLMock } from "@copilotkit/aimock";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, installCleanup, killAll, onExit, spawnBun, waitReady } from "./bench/processes.ts";
import { GATEWAY_RUNTIME_ENV } from "./bench/setup.ts";
import { readVm } from "./bench/memory.ts";
import { kindAt, MIX, programUpstream, send, type Kind, type Outcome } from "./soak/traffic.ts";
import { slopePerMinute } from "./soak/slope.ts";

const num = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
const seconds = num("SOAK_SECONDS", 600);
const rps = num("SOAK_RPS", 40);
const warmup = num("SOAK_WARMUP_SECONDS", Math.min(120, seconds / 5));
const sampleEvery = num("SOAK_SAMPLE_SECONDS", 5);
const maxInflight = num("SOAK_MAX_INFLIGHT", 64);

interface Sample {
  t: number;
  rssMiB: number;
  fds: number;
  queue: number;
}

function openFds(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return Number.NaN;
  }
}

async function queueDepth(gatewayUrl: string): Promise<number> {
  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  const match = /^gateway_log_queue_depth(?:\{[^}]*\})? (\S+)$/m.exec(text);
  return match ? Number(match[1]) : Number.NaN;
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

async function main(): Promise<void> {
  installCleanup();
  const workDir = mkdtempSync(join(tmpdir(), "gateway-soak-"));
  onExit(() => rmSync(workDir, { recursive: true, force: true }));

  const upstream = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent" });
  programUpstream(upstream);
  await upstream.start();

  const port = await freePort();
  const adminKey = `soak-admin-${randomBytes(12).toString("hex")}`;
  const gateway = spawnBun("gateway (bun src/server/bun.ts)", "src/server/bun.ts", {
    PORT: String(port),
    HOST: "127.0.0.1",
    GATEWAY_DATABASE_URL: `file:${join(workDir, "soak.db")}`,
    GATEWAY_DATA_DIR: workDir,
    GATEWAY_ADMIN_KEY: adminKey,
    GATEWAY_QUIET: "1",
    GATEWAY_METRICS: "public",
    ...GATEWAY_RUNTIME_ENV,
  });
  const gatewayUrl = `http://127.0.0.1:${port}`;
  await waitReady(gateway, async () => (await fetch(`${gatewayUrl}/health`)).ok, 20_000);
  const headers = {
    "x-gateway-api-key": adminKey,
    "x-gateway-provider": "openai",
    "x-gateway-custom-host": `${upstream.url}/v1`,
    authorization: "Bearer sk-soak",
  };
  console.log(`soak: ${seconds} s at ${rps} req/s, warm-up ${warmup} s, mix ${MIX.map(([k, p]) => `${k} ${p}/20`).join(", ")}`);

  const outcomes: Outcome[] = [];
  const samples: Sample[] = [];
  let inflight = 0;
  let skipped = 0;
  let sent = 0;
  const started = performance.now();
  const elapsed = (): number => (performance.now() - started) / 1000;
  const pending = new Set<Promise<void>>();

  const sampler = setInterval(() => {
    void queueDepth(gatewayUrl)
      .catch(() => Number.NaN)
      .then((queue) => {
        const sample = { t: elapsed(), rssMiB: readVm(gateway.pid, "VmRSS"), fds: openFds(gateway.pid), queue };
        samples.push(sample);
        console.log(`t=${sample.t.toFixed(0)}s rss=${sample.rssMiB.toFixed(1)}MiB fds=${sample.fds} queue=${sample.queue} sent=${sent} inflight=${inflight}`);
      });
  }, sampleEvery * 1000);

  // Open loop: request n leaves at n/rps seconds whatever the answers do, so a slowing gateway
  // shows as growing latency and in-flight count, not as a politely lower rate.
  while (elapsed() < seconds) {
    const due = sent / rps - elapsed();
    if (due > 0) await new Promise((resolve) => setTimeout(resolve, due * 1000));
    if (inflight >= maxInflight) {
      skipped++;
      sent++;
      continue;
    }
    const kind: Kind = kindAt(sent++);
    inflight++;
    const task = send(kind, gatewayUrl, headers).then((outcome) => {
      inflight--;
      outcomes.push(outcome);
    });
    pending.add(task);
    void task.then(() => pending.delete(task));
  }
  await Promise.all(pending);
  clearInterval(sampler);

  // Every record written: wait for the queue to empty, then count the stored rows.
  for (let i = 0; i < 100 && (await queueDepth(gatewayUrl)) > 0; i++) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 1000));
  const exported = await (await fetch(`${gatewayUrl}/v1/logs/export?format=jsonl`, { headers: { "x-gateway-api-key": adminKey } })).text();
  const stored = exported.split("\n").filter((line) => line.trim() !== "").length;

  const steady = samples.filter((s) => s.t >= warmup);
  const slope = (pick: (s: Sample) => number): number => slopePerMinute(steady.map((s) => [s.t, pick(s)] as const));
  const range = (pick: (s: Sample) => number): string => {
    const values = steady.map(pick);
    return `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}`;
  };
  const logged = outcomes.filter((o) => o.logged).length;
  console.log("\nsoak results");
  console.log(`requests: ${outcomes.length} answered, ${skipped} skipped (in-flight cap), ${outcomes.filter((o) => !o.ok).length} unexpected`);
  for (const [kind] of MIX) {
    const mine = outcomes.filter((o) => o.kind === kind);
    const statuses = [...new Set(mine.map((o) => o.status))].join("/");
    const ms = mine.map((o) => o.ms);
    console.log(`  ${kind.padEnd(10)} n=${mine.length} ok=${mine.filter((o) => o.ok).length} status=${statuses} p50=${percentile(ms, 50).toFixed(1)}ms p99=${percentile(ms, 99).toFixed(1)}ms`);
  }
  for (const failed of outcomes.filter((o) => !o.ok).slice(0, 5)) console.log(`  unexpected ${failed.kind} ${failed.status}: ${failed.detail ?? ""}`);
  console.log(`after warm-up (${steady.length} samples, t ≥ ${warmup} s):`);
  console.log(`  RSS MiB ${range((s) => s.rssMiB)}, slope ${slope((s) => s.rssMiB).toFixed(3)} MiB/min`);
  console.log(`  open fds ${range((s) => s.fds)}, slope ${slope((s) => s.fds).toFixed(3)} fds/min`);
  console.log(`  log queue ${range((s) => s.queue)}, slope ${slope((s) => s.queue).toFixed(3)} records/min`);
  console.log(`logged: ${stored} stored rows for ${logged} answers with a log id (${stored === logged ? "every request logged" : "MISMATCH"})`);

  await upstream.stop();
  killAll();
  const failed = stored !== logged || outcomes.some((o) => !o.ok);
  process.exit(failed ? 1 : 0);
}

await main();
