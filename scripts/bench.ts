/**
 * `npm run bench`: the gateway side by side with a zero-delay upstream reached directly and
 * through the thinnest Bun proxy (the floor). See docs/benchmark.md for how to read it.
 */
import { spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { measure, loadRunner, warmUp } from "./bench/measure.ts";
import { readCpuSeconds, readThreadCpu } from "./bench/cpu.ts";
import { settledRss, watchPeak, type PeakWatch } from "./bench/memory.ts";
import { readOptions } from "./bench/options.ts";
import { measureOperations } from "./bench/operations.ts";
import { measureStreamCpu } from "./bench/stream-cpu.ts";
import { preflight } from "./bench/preflight.ts";
import { profileGateway } from "./bench/profile.ts";
import { bunPath, installCleanup, killAll, repoRoot } from "./bench/processes.ts";
import { render, summarize, verdicts, writeResults, type MemoryFigures, type Results } from "./bench/report.ts";
import { startAll, type Running } from "./bench/setup.ts";
import { directMcpEndpoint, gatewayMcpEndpoint, measureMcp, type McpFigures } from "./bench/mcp.ts";
import type { BenchOptions } from "./bench/options.ts";
import type { TargetName } from "./bench/targets.ts";
import { wrkAvailable } from "./bench/wrk.ts";

const log = (line: string): void => console.log(`bench: ${line}`);
/** How long a process is left alone before its start and idle RSS are read: past the gateway's 2 s idle collection. */
const SETTLE_MS = 5_000;
/** Discarded load per side before the MCP target is timed: the gateway's MCP path is warm after a few thousand calls. */
const MCP_WARMUP_SECONDS = 1;

async function main(): Promise<void> {
  installCleanup();
  const options = readOptions();
  // What else the machine was running: figures taken beside other work are not comparable.
  const loadAtStart = loadavg()[0]!;
  const useWrk = options.driver === "wrk" || (options.driver === "auto" && wrkAvailable());
  if (options.driver === "wrk" && !wrkAvailable()) throw new Error("bench: BENCH_DRIVER=wrk but wrk is not on PATH");
  const throughputDriver = useWrk
    ? `wrk, ${options.wrkThreads} thread(s), ${options.connections} connections, ${options.seconds} s per run`
    : `built-in node:http keep-alive loop (${options.driver === "node" ? "BENCH_DRIVER=node" : "wrk not on PATH"}), ` +
      `${options.connections} connections, ${options.seconds} s per run; the client may be the bottleneck`;

  log(`starting ${options.targets.join(", ")}`);
  const running = await startAll(options);
  // Memory is read per process: the gateway's targets share one.
  const pidOf = (name: TargetName): number | undefined => running.processes[name]?.pid;
  const pidsInUse = [...new Set(running.targets.map((target) => pidOf(target.name)).filter((pid) => pid !== undefined))];
  // Read after the gateway's own collection of a quiet process (2 s without a request), not racing it.
  const settled = async (): Promise<Map<number, number>> =>
    new Map(await Promise.all(pidsInUse.map(async (pid) => [pid, await settledRss(pid, { minMs: SETTLE_MS })] as const)));
  for (const target of running.targets) await preflight(target);
  const startByPid = await settled();

  const load = loadRunner(options, useWrk, running.workDir);
  log(`warming up (${options.warmupSeconds} s load per target)`);
  await warmUp(running.targets, options, load);
  log("letting every process settle, then reading its idle RSS");
  const idleByPid = await settled();
  const loadPeaks = new Map<number, PeakWatch>(pidsInUse.map((pid) => [pid, watchPeak(pid)]));

  const cpuSeconds = (name: TargetName): number => {
    const pid = pidOf(name);
    return pid === undefined ? Number.NaN : readCpuSeconds(pid);
  };
  const threadCpu = (name: TargetName) => {
    const pid = pidOf(name);
    return pid === undefined ? new Map() : readThreadCpu(pid);
  };
  const samples = await measure(running.targets, options, load, log, cpuSeconds, threadCpu);
  // A target process that died mid-run turns every later request into an error: say why.
  for (const [name, child] of Object.entries(running.processes)) {
    if (child.exited) log(`${name} process exited during the run; its last output:\n${child.output().slice(-4000)}`);
  }
  const pids = Object.fromEntries(Object.entries(running.processes).map(([name, child]) => [name, child.pid]));
  const streamCpu = await measureStreamCpu(running.targets, options, useWrk, running.workDir, cpuSeconds, log);
  // The chat loads' peak ends here: the uploads have a peak of their own.
  const peakByPid = new Map([...loadPeaks].map(([pid, watch]) => [pid, watch.stop()]));
  const operations = await measureOperations(running.targets, pids, { streams: options.responsesRequests, uploads: options.uploads }, log);
  const mcp = options.targets.includes("mcp") ? await measureMcpTarget(running, options) : undefined;
  const profile = options.profile
    ? await profileGateway(options, { upstreamPort: running.upstreamPort, workDir: running.workDir, useWrk, ...(running.mcpServer ? { mcpServerUrl: running.mcpServer.url } : {}) }, log)
    : undefined;
  killAll();

  const memory: MemoryFigures = { startRssMb: {}, idleRssMb: {}, peakRssMb: {} };
  for (const target of running.targets) {
    const pid = pidOf(target.name);
    if (pid === undefined) continue;
    memory.startRssMb[target.name] = startByPid.get(pid) ?? Number.NaN;
    memory.idleRssMb[target.name] = idleByPid.get(pid) ?? Number.NaN;
    memory.peakRssMb[target.name] = peakByPid.get(pid) ?? Number.NaN;
  }
  const figures = summarize(samples, memory);
  const results: Results = {
    finishedAt: new Date().toISOString(),
    drivers: {
      throughput: throughputDriver,
      latency: "built-in node:http, 1 keep-alive connection per target, sequential, performance.now()",
    },
    environment: {
      cpus: cpus().length,
      node: process.version,
      bun: spawnSync(bunPath, ["--version"], { encoding: "utf8" }).stdout.trim(),
      platform: `${process.platform}-${process.arch}`,
      loadAverage: { start: loadAtStart, end: loadavg()[0]! },
    },
    options,
    targets: figures,
    operations,
    streamCpu,
    ...(mcp ? { mcp } : {}),
    ...(profile ? { profile } : {}),
    verdicts: verdicts(figures, operations, streamCpu, mcp),
  };
  console.log(`\n${render(results)}`);
  console.log(`\nfigures written to ${writeResults(repoRoot, results)}`);
}

/** The `mcp` target: the gateway's MCP gateway against the bench's MCP server, after the chat targets. */
async function measureMcpTarget(running: Running, options: BenchOptions): Promise<McpFigures> {
  const { gateway, mcpServer } = running;
  if (!gateway || !mcpServer) throw new Error("bench: the mcp target needs the gateway and the MCP server");
  const endpoints = { direct: directMcpEndpoint(mcpServer.url), gateway: await gatewayMcpEndpoint(`http://127.0.0.1:${gateway.port}`, gateway.adminKey, mcpServer.url) };
  const pid = { direct: mcpServer.child.pid, gateway: gateway.child.pid, server: mcpServer.child.pid };
  const figures = await measureMcp(
    endpoints,
    { connections: options.connections, latencyRequests: options.latencyRequests, rounds: options.rounds, seconds: options.mcpSeconds, warmupSeconds: MCP_WARMUP_SECONDS },
    (of) => readCpuSeconds(pid[of]),
    log,
  );
  if (mcpServer.child.exited) log(`the MCP server exited during the run; its last output:\n${mcpServer.child.output().slice(-4000)}`);
  return figures;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    killAll();
    process.exit(1);
  },
);
