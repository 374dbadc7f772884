/**
 * `npm run bench -- --profile`: one more gateway process, started under Bun's CPU profiler
 * (`bun --cpu-prof`), warmed up and then loaded like the `gateway` target (or the one
 * `BENCH_PROFILE_TARGET` names, `mcp` among them). Its own process, so the
 * profiler's cost never reaches the measured figures. The profile is kept in bench-results/ (open
 * it in Chrome DevTools or speedscope); the bench prints the top functions by self time over the
 * load run alone, and each thread's CPU time per request.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { readThreadCpu } from "./cpu.ts";
import { selfTimes, type CpuProfile, type FunctionCost } from "./cpu-profile.ts";
import { REQUEST_THREAD_STAGES, stageTimes, type StageCost } from "./stages.ts";
import type { LoadResult } from "./http-driver.ts";
import { loadRunner } from "./measure.ts";
import { checkCall, gatewayMcpEndpoint, mcpLoad, openSession } from "./mcp.ts";
import type { BenchOptions } from "./options.ts";
import { preflight } from "./preflight.ts";
import { repoRoot, type Child } from "./processes.ts";
import { startGateway } from "./setup.ts";
import { round } from "./stats.ts";
import { anthropicTarget, cacheTarget, fallbackTarget, gatewayTarget, type Target } from "./targets.ts";
import type { ProfiledTarget } from "./options.ts";

const PROFILED: Readonly<Record<Exclude<ProfiledTarget, "mcp">, (gatewayPort: number, upstreamPort: number, adminKey: string) => Target>> = {
  gateway: gatewayTarget,
  cache: cacheTarget,
  fallback: fallbackTarget,
  anthropic: anthropicTarget,
};

export interface ThreadCost {
  /** The thread's name (`/proc/<pid>/task/<tid>/comm`); threads of one name are summed. */
  name: string;
  usPerRequest: number;
}

export interface ProfileFigures {
  /** The `.cpuprofile`, relative to the repository. */
  file: string;
  /** Requests answered in the profiled load run, and its rate (the profiler slows it). */
  requests: number;
  rps: number;
  intervalUs: number;
  /** Samples in the load run and the self time they stand for, µs per request. */
  samples: number;
  sampledUsPerRequest: number;
  /** Each thread's CPU time over the load run and the settling second after it. */
  threads: ThreadCost[];
  functions: FunctionCost[];
  /**
   * The request thread's sampled time by stage of the path (`stages.ts`). Bun profiles the main
   * thread only: the log worker's stages are `log-worker-stages.ts`'s.
   */
  stages: { requestThread: StageCost[] };
}

/** How many functions the report and the JSON keep. */
export const TOP_FUNCTIONS = 25;

const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
const nowUs = (): number => (performance.timeOrigin + performance.now()) * 1000;

/** Stops the gateway the way an operator does (SIGTERM): Bun writes the profile as it exits. */
async function stop(child: Child, timeoutMs: number): Promise<void> {
  if (child.exited) throw new Error(`bench: the profiled gateway exited early. Its output:\n${child.output()}`);
  const exited = new Promise<void>((done) => child.process.once("exit", () => done()));
  child.process.kill("SIGTERM");
  const timer = setTimeout(() => child.process.kill("SIGKILL"), timeoutMs);
  await exited;
  clearTimeout(timer);
}

function threadCosts(before: ReturnType<typeof readThreadCpu>, after: ReturnType<typeof readThreadCpu>, requests: number): ThreadCost[] {
  const byName = new Map<string, number>();
  for (const [tid, thread] of after) {
    const seconds = thread.seconds - (before.get(tid)?.seconds ?? 0);
    byName.set(thread.name, (byName.get(thread.name) ?? 0) + seconds);
  }
  return [...byName]
    .map(([name, seconds]) => ({ name, usPerRequest: round((seconds * 1e6) / requests, 1) }))
    .filter((thread) => thread.usPerRequest > 0)
    .sort((a, b) => b.usPerRequest - a.usPerRequest);
}

/** The profiled target's load, checked first: a chat target's, or MCP tools/calls on their own sessions (`mcp.ts`). */
async function profiledLoad(
  options: BenchOptions,
  context: { upstreamPort: number; useWrk: boolean; mcpServerUrl?: string; dir: string },
  port: number,
  adminKey: string,
): Promise<(seconds: number) => Promise<LoadResult>> {
  if (options.profileTarget === "mcp") {
    if (context.mcpServerUrl === undefined) throw new Error("bench: BENCH_PROFILE_TARGET=mcp but no MCP server was started");
    const endpoint = await gatewayMcpEndpoint(`http://127.0.0.1:${port}`, adminKey, context.mcpServerUrl);
    const sessions: string[] = [];
    for (let i = 0; i < options.connections; i += 1) sessions.push(await openSession(endpoint));
    await checkCall(endpoint, sessions[0]!);
    return (seconds) => mcpLoad(endpoint, sessions, seconds);
  }
  const target = PROFILED[options.profileTarget](port, context.upstreamPort, adminKey);
  await preflight(target);
  const load = loadRunner(options, context.useWrk, context.dir);
  return (seconds) => load(target, seconds);
}

export async function profileGateway(
  options: BenchOptions,
  context: { upstreamPort: number; workDir: string; useWrk: boolean; mcpServerUrl?: string },
  progress: (line: string) => void,
): Promise<ProfileFigures> {
  const dir = join(context.workDir, "profile");
  mkdirSync(dir, { recursive: true });
  const interval = options.profileIntervalUs;
  progress(`profile: starting a gateway under bun --cpu-prof (${interval} µs interval), loaded like ${options.profileTarget}`);
  const { child, port, adminKey } = await startGateway(options, context.workDir, "profiled gateway", join(dir, "bench.db"), [
    "--cpu-prof",
    `--cpu-prof-dir=${dir}`,
    `--cpu-prof-interval=${interval}`,
  ]);
  const load = await profiledLoad(options, { ...context, dir }, port, adminKey);
  await load(options.warmupSeconds);
  await pause(1000);

  const threadsBefore = readThreadCpu(child.pid);
  const fromUs = nowUs();
  const result = await load(options.seconds);
  const toUs = nowUs();
  await pause(1000);
  const threadsAfter = readThreadCpu(child.pid);
  progress(`profile: ${Math.round(result.rps)} req/s under the profiler, ${result.errors} errors`);
  await stop(child, 30_000);

  const written = readdirSync(dir).filter((name) => name.endsWith(".cpuprofile")).sort();
  if (written.length === 0) throw new Error(`bench: the profiled gateway wrote no .cpuprofile. Its output:\n${child.output()}`);
  // Bun profiles the request (main) thread only: one file.
  const requestThreadFile = written[0]!;
  const profile = JSON.parse(readFileSync(join(dir, requestThreadFile), "utf8")) as CpuProfile;
  const resultsDir = join(repoRoot, "bench-results");
  mkdirSync(resultsDir, { recursive: true });
  const file = join("bench-results", `gateway-${new Date().toISOString().replace(/[:.]/g, "-")}.cpuprofile`);
  copyFileSync(join(dir, requestThreadFile), join(repoRoot, file));

  const window = { fromUs, toUs };
  const summary = selfTimes(profile, window, { intervalUs: interval, root: repoRoot });
  const stages = stageTimes(profile, window, { intervalUs: interval, requests: result.requests, rules: REQUEST_THREAD_STAGES });
  return {
    file,
    requests: result.requests,
    rps: round(result.rps, 0),
    intervalUs: interval,
    samples: summary.samples,
    sampledUsPerRequest: round(summary.sampledUs / result.requests, 1),
    threads: threadCosts(threadsBefore, threadsAfter, result.requests),
    functions: summary.functions.slice(0, TOP_FUNCTIONS).map((cost) => ({ ...cost, selfUs: round(cost.selfUs, 0), percent: round(cost.percent, 1) })),
    stages: { requestThread: stages.map((cost) => ({ ...cost, usPerRequest: round(cost.usPerRequest, 1), percent: round(cost.percent, 1) })) },
  };
}
