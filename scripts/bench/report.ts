/** Turns samples into figures, verdicts, a console table and bench-results/latest.json. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Samples } from "./measure.ts";
import type { McpFigures } from "./mcp.ts";
import { UPLOAD_MIB, type OperationFigures } from "./operations.ts";
import type { BenchOptions } from "./options.ts";
import { median, quantile, round } from "./stats.ts";
import type { ProfileFigures } from "./profile.ts";
import type { StreamCpuFigures } from "./stream-cpu.ts";
import type { TargetName } from "./targets.ts";

export interface TargetFigures {
  rps: number;
  rpsRounds: number[];
  /** The target's own CPU time per request under load (all its threads), µs: median of the rounds. */
  cpuUsPerRequest: number;
  /** The same split by thread group (`threadGroupOf` in cpu.ts): each group's median of the rounds, µs. */
  threadsUsPerRequest: Record<string, number>;
  loadErrors: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencySamples: number;
  firstTokenP50Ms: number;
  firstTokenSamples: number;
  sequentialErrors: number;
  /** Added over direct: target − direct, ms. Zero for direct itself. */
  addedP50Ms: number;
  addedP99Ms: number;
  addedFirstTokenMs: number;
  /** VmRSS after start-up, before any load, once it stopped moving. */
  startRssMb: number;
  /** VmRSS after start-up and warm-up, before any measured load, once it stopped moving. */
  idleRssMb: number;
  /** Highest RSS during the measured chat loads (throughput and streamed), uploads excluded. */
  peakRssMb: number;
}

/** Each process's memory in its phases, MB; a process serving several targets counts for each. */
export interface MemoryFigures {
  startRssMb: Partial<Record<TargetName, number>>;
  idleRssMb: Partial<Record<TargetName, number>>;
  peakRssMb: Partial<Record<TargetName, number>>;
}

export interface Verdict {
  name: string;
  value: number;
  unit: string;
  goal: string;
  pass: boolean;
  /**
   * `goal`: where the request path is meant to get to. `budget`: what it reaches now, held against
   * the logging floor of the same run, so a change that makes the path dearer shows as a MISS.
   */
  kind: "goal" | "budget";
}

export interface Results {
  finishedAt: string;
  drivers: { throughput: string; latency: string };
  /** `loadAverage`: the 1-minute load average when the bench started and when it ended. */
  environment: { cpus: number; node: string; bun: string; platform: string; loadAverage: { start: number; end: number } };
  options: BenchOptions;
  targets: Partial<Record<TargetName, TargetFigures>>;
  /** The Responses stream and the upload, direct and gateway. */
  operations: Partial<Record<TargetName, OperationFigures>>;
  /** A streamed chat under load: the pass-through and the Anthropic translation. */
  streamCpu: Partial<Record<TargetName, StreamCpuFigures>>;
  /** The `mcp` target: a tools/call through the MCP gateway against the same call direct; present when it ran. */
  mcp?: McpFigures;
  /** Present when the bench ran with `--profile`. */
  profile?: ProfileFigures;
  verdicts: Verdict[];
}

export function summarize(samples: Samples, memory: MemoryFigures): Results["targets"] {
  const figures: Results["targets"] = {};
  const direct = samples.direct;
  const directP50 = quantile(direct.latencyMs, 0.5);
  const directP99 = quantile(direct.latencyMs, 0.99);
  const directFirst = median(direct.firstTokenMs);
  for (const [name, own] of Object.entries(samples) as Array<[TargetName, Samples[TargetName]]>) {
    const p50 = quantile(own.latencyMs, 0.5);
    const p99 = quantile(own.latencyMs, 0.99);
    const first = median(own.firstTokenMs);
    const rpsRounds = own.load.map((result) => result.rps);
    figures[name] = {
      rps: round(median(rpsRounds), 0),
      rpsRounds: rpsRounds.map((value) => round(value, 0)),
      cpuUsPerRequest: round(median(own.cpuUsPerRequest), 0),
      threadsUsPerRequest: medianPerGroup(own.threadUsPerRequest),
      loadErrors: own.load.reduce((sum, result) => sum + result.errors, 0),
      latencyP50Ms: round(p50),
      latencyP99Ms: round(p99),
      latencySamples: own.latencyMs.length,
      firstTokenP50Ms: round(first),
      firstTokenSamples: own.firstTokenMs.length,
      sequentialErrors: own.sequentialErrors,
      addedP50Ms: round(p50 - directP50),
      addedP99Ms: round(p99 - directP99),
      addedFirstTokenMs: round(first - directFirst),
      startRssMb: round(memory.startRssMb[name] ?? Number.NaN, 1),
      idleRssMb: round(memory.idleRssMb[name] ?? Number.NaN, 1),
      peakRssMb: round(memory.peakRssMb[name] ?? Number.NaN, 1),
    };
  }
  return figures;
}

/** Each thread group's median over the rounds (0 in a round where the group did not run), µs. */
function medianPerGroup(rounds: ReadonlyArray<Record<string, number>>): Record<string, number> {
  const groups = new Set(rounds.flatMap((costs) => Object.keys(costs)));
  return Object.fromEntries([...groups].map((group) => [group, round(median(rounds.map((costs) => costs[group] ?? 0)), 1)]));
}

/** The goals the gateway is held to (docs/benchmark.md says why each bound); empty when the gateway was not measured. */
export const GOALS = {
  cpuUsPerRequest: 100,
  rpsOverFloor: 0.5,
  limitedCpuOverPlain: 1.3,
  addedP99Ms: 1,
  addedP50Ms: 0.2,
  peakRssMb: 150,
  idleRssMb: 70,
  uploadGrowthMib: 32,
  streamedCpuOverPlain: 1.5,
  anthropicCpuOverPlain: 1.2,
  anthropicStreamCpuOverPassThrough: 1.5,
  mcpAddedP50Ms: 1,
} as const;

/**
 * The request path's budget: the bounds every change holds (docs/benchmark.md, "Budget"). The
 * ratios are to the logging floor of the same run, which moves with the machine as the gateway
 * does; each bound leaves about a fifth over the figures of the current design.
 */
export const BUDGET = {
  cpuOverLoggingFloor: 2.6,
  rpsOverLoggingFloor: 0.4,
  cacheRpsOverLoggingFloor: 0.5,
  peakRssMb: 260,
  idleRssMb: 160,
} as const;

export function verdicts(targets: Results["targets"], operations: Results["operations"] = {}, streamCpu: Results["streamCpu"] = {}, mcp?: McpFigures): Verdict[] {
  const { gateway, floor, cache, limited, anthropic } = targets;
  const list: Verdict[] = [];
  const atMost = (name: string, value: number, unit: string, goal: number, kind: Verdict["kind"] = "goal"): void => {
    list.push({ name, value, unit, goal: `≤ ${goal}${unit === "" ? "" : ` ${unit}`}`, pass: value <= goal, kind });
  };
  const atLeast = (name: string, value: number, goal: number, kind: Verdict["kind"]): void => {
    list.push({ name, value, unit: "", goal: `≥ ${goal}`, pass: value >= goal, kind });
  };
  const ratio = (a: number, b: number): number => round(a / b, 3);
  if (gateway) atMost("gateway CPU per plain chat request, all threads", gateway.cpuUsPerRequest, "µs", GOALS.cpuUsPerRequest);
  if (gateway && floor) {
    atLeast("gateway rps / floor rps", ratio(gateway.rps, floor.rps), GOALS.rpsOverFloor, "goal");
  }
  if (cache && floor) list.push(...cacheVerdicts(cache, floor));
  if (targets.semantic && cache && targets.direct) list.push(semanticVerdict(targets.semantic, cache, targets.direct));
  if (limited && gateway) atMost("limited CPU/req / gateway CPU/req", ratio(limited.cpuUsPerRequest, gateway.cpuUsPerRequest), "", GOALS.limitedCpuOverPlain);
  if (gateway) {
    atMost("added p99 at 1 connection", gateway.addedP99Ms, "ms", GOALS.addedP99Ms);
    atMost("added p50 at 1 connection", gateway.addedP50Ms, "ms", GOALS.addedP50Ms);
    atMost("gateway peak RSS under the chat load", gateway.peakRssMb, "MB", GOALS.peakRssMb);
    atMost("gateway idle RSS after warm-up", gateway.idleRssMb, "MB", GOALS.idleRssMb);
  }
  const growth = operations.gateway?.uploadRssGrowthMib;
  if (growth !== undefined) atMost(`gateway RSS growth during a ${UPLOAD_MIB} MiB upload`, growth, "MiB", GOALS.uploadGrowthMib);
  if (streamCpu.gateway && gateway) {
    atMost("streamed chat CPU/req / plain chat CPU/req", ratio(streamCpu.gateway.cpuUsPerRequest, gateway.cpuUsPerRequest), "", GOALS.streamedCpuOverPlain);
  }
  if (anthropic && gateway) atMost("anthropic CPU/req / plain chat CPU/req", ratio(anthropic.cpuUsPerRequest, gateway.cpuUsPerRequest), "", GOALS.anthropicCpuOverPlain);
  if (streamCpu.anthropic && streamCpu.gateway) {
    // Translating every event of a stream may cost CPU, but not more than half again the pass-through's.
    atMost(
      "anthropic stream CPU/req / pass-through stream CPU/req",
      ratio(streamCpu.anthropic.cpuUsPerRequest, streamCpu.gateway.cpuUsPerRequest),
      "",
      GOALS.anthropicStreamCpuOverPassThrough,
    );
  }
  if (mcp) atMost("MCP tools/call added p50 at 1 connection", mcp.addedP50Ms, "ms", GOALS.mcpAddedP50Ms);
  const logged = targets.logged;
  if (gateway && logged) {
    atMost("budget: gateway CPU/req / logging floor CPU/req", ratio(gateway.cpuUsPerRequest, logged.cpuUsPerRequest), "", BUDGET.cpuOverLoggingFloor, "budget");
    atLeast("budget: gateway rps / logging floor rps", ratio(gateway.rps, logged.rps), BUDGET.rpsOverLoggingFloor, "budget");
    if (cache) atLeast("budget: cache hit rps / logging floor rps", ratio(cache.rps, logged.rps), BUDGET.cacheRpsOverLoggingFloor, "budget");
  }
  if (gateway) {
    atMost("budget: gateway peak RSS under the chat load", gateway.peakRssMb, "MB", BUDGET.peakRssMb, "budget");
    atMost("budget: gateway idle RSS after warm-up", gateway.idleRssMb, "MB", BUDGET.idleRssMb, "budget");
  }
  return list;
}

/** Columns of text: the ones named in `left` aligned left (names), the others right (figures). */
function table(rows: string[][], left: readonly number[] = [0]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? [];
  return rows
    .map((row) => row.map((cell, column) => (left.includes(column) ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join("  ").trimEnd())
    .join("\n");
}

const fixed = (value: number, digits: number): string => (Number.isNaN(value) ? "n/a" : value.toFixed(digits));
const signed = (value: number): string => (Number.isNaN(value) ? "n/a" : `${value >= 0 ? "+" : ""}${value.toFixed(3)}`);

/** The human-readable report. */
export function render(results: Results): string {
  const header = [
    "target",
    `rps@${results.options.connections}`,
    "rps per round",
    "CPU µs/req",
    "p50 ms",
    "p99 ms",
    "added p50",
    "added p99",
    "TTFT p50 ms",
    "added TTFT",
    "errors",
    "start RSS MB",
    "idle RSS MB",
    "peak RSS MB",
  ];
  const rows = [header];
  for (const [name, f] of Object.entries(results.targets) as Array<[TargetName, TargetFigures]>) {
    rows.push([
      name,
      fixed(f.rps, 0),
      f.rpsRounds.map((value) => fixed(value, 0)).join(" / "),
      fixed(f.cpuUsPerRequest, 0),
      fixed(f.latencyP50Ms, 3),
      fixed(f.latencyP99Ms, 3),
      name === "direct" ? "—" : signed(f.addedP50Ms),
      name === "direct" ? "—" : signed(f.addedP99Ms),
      fixed(f.firstTokenP50Ms, 3),
      name === "direct" ? "—" : signed(f.addedFirstTokenMs),
      String(f.loadErrors + f.sequentialErrors),
      fixed(f.startRssMb, 1),
      fixed(f.idleRssMb, 1),
      fixed(f.peakRssMb, 1),
    ]);
  }
  const lines = [
    `throughput driver: ${results.drivers.throughput}`,
    `latency driver:    ${results.drivers.latency}`,
    `machine: ${results.environment.cpus} CPUs, node ${results.environment.node}, bun ${results.environment.bun}, ${loadLine(results.environment)}`,
    "",
    table(rows),
    "",
    ...threadLines(results.targets),
    ...streamCpuLines(results.streamCpu),
    ...operationLines(results.operations),
    ...mcpLines(results.mcp),
    ...(results.profile ? [...profileLines(results.profile), ""] : []),
  ];
  if (results.verdicts.length === 0) lines.push("gateway not measured: no verdicts");
  for (const verdict of results.verdicts) {
    const digits = verdict.unit === "MB" || verdict.unit === "MiB" ? 1 : verdict.unit === "µs" ? 0 : 3;
    const value = `${fixed(verdict.value, digits)}${verdict.unit === "" ? "" : ` ${verdict.unit}`}`;
    lines.push(`${verdict.pass ? "PASS" : "MISS"}  ${verdict.name}: ${value} (${verdict.kind === "goal" ? "goal " : ""}${verdict.goal})`);
  }
  const { gateway, floor } = results.targets;
  if (gateway !== undefined && floor !== undefined) {
    // The added-p50 goal counts the hop itself, which no gateway on this runtime avoids.
    lines.push(`note  at 1 connection the floor adds ${signed(floor.addedP50Ms)} ms p50; the gateway adds ${signed(round(gateway.addedP50Ms - floor.addedP50Ms))} ms over the floor`);
  }
  const logged = results.targets.logged;
  if (gateway !== undefined && floor !== undefined && logged !== undefined) {
    // What logging every request costs on this machine, and what the gateway's own machinery costs above it.
    lines.push(
      `note  CPU per request: floor ${fixed(floor.cpuUsPerRequest, 0)} µs, logging floor ${fixed(logged.cpuUsPerRequest, 0)} µs (rps ${fixed(round(logged.rps / floor.rps, 3), 3)} × floor), gateway ${fixed(gateway.cpuUsPerRequest, 0)} µs: ${fixed(logged.cpuUsPerRequest - floor.cpuUsPerRequest, 0)} µs to log, ${fixed(gateway.cpuUsPerRequest - logged.cpuUsPerRequest, 0)} µs of machinery`,
    );
  }
  return lines.join("\n");
}

/** A 1-minute load average at the start above this means other work shared the cores. */
const BUSY_LOAD_AT_START = 1;

/**
 * The load average beside the run, and a warning when the machine was busy with other work:
 * the bench's own processes keep the load near the core count only while it runs, so a load
 * above one core at the start is somebody else's.
 */
function loadLine({ loadAverage, cpus }: Results["environment"]): string {
  const figures = `load average ${fixed(loadAverage.start, 2)} at the start, ${fixed(loadAverage.end, 2)} at the end`;
  return loadAverage.start > BUSY_LOAD_AT_START ? `${figures} (busy before the bench began: compare only with runs made beside this one on ${cpus} CPUs)` : figures;
}

/** The thread groups in the order the table shows them; any other group follows. */
const THREAD_GROUPS = ["request thread", "log worker", "HTTP client", "JIT compiler", "GC and allocator", "other"];

/** CPU per request by thread group, for each target process that reported its threads. */
function threadLines(targets: Results["targets"]): string[] {
  const entries = (Object.entries(targets) as Array<[TargetName, TargetFigures]>).filter(([, f]) => Object.keys(f.threadsUsPerRequest ?? {}).length > 0);
  if (entries.length === 0) return [];
  const groups = [...new Set([...THREAD_GROUPS.filter((group) => entries.some(([, f]) => group in f.threadsUsPerRequest)), ...entries.flatMap(([, f]) => Object.keys(f.threadsUsPerRequest))])];
  const rows = [["CPU µs/req by thread", ...groups, "sum", "process"]];
  for (const [name, f] of entries) {
    const costs = groups.map((group) => f.threadsUsPerRequest[group] ?? 0);
    rows.push([name, ...costs.map((value) => fixed(value, 1)), fixed(costs.reduce((sum, value) => sum + value, 0), 1), fixed(f.cpuUsPerRequest, 0)]);
  }
  return [table(rows), ""];
}

/** The streamed-chat table (pass-through and translated); nothing when neither was measured. */
function streamCpuLines(streamCpu: Results["streamCpu"]): string[] {
  const entries = Object.entries(streamCpu) as Array<[TargetName, StreamCpuFigures]>;
  if (entries.length === 0) return [];
  const rows = [["streamed chat", "rps", "CPU µs/req", "CPU per round", "errors"]];
  for (const [name, f] of entries) rows.push([name, fixed(f.rps, 0), fixed(f.cpuUsPerRequest, 0), f.cpuRounds.map((value) => fixed(value, 0)).join(" / "), String(f.errors)]);
  return [table(rows), ""];
}

/** The Responses stream and upload table, direct and gateway; nothing when neither was measured. */
function operationLines(operations: Results["operations"]): string[] {
  const entries = Object.entries(operations) as Array<[TargetName, OperationFigures]>;
  if (entries.length === 0) return [];
  const directFirst = operations.direct?.firstEventP50Ms ?? Number.NaN;
  const directRate = operations.direct?.uploadMibPerSecond ?? Number.NaN;
  const rows = [["target", "Responses 1st event p50 ms", "added", `${UPLOAD_MIB} MiB upload MiB/s`, "per run", "vs direct", "RSS growth MiB", "upload peak RSS MB", "errors"]];
  for (const [name, f] of entries) {
    rows.push([
      name,
      fixed(f.firstEventP50Ms, 3),
      name === "direct" ? "—" : signed(round(f.firstEventP50Ms - directFirst)),
      fixed(f.uploadMibPerSecond, 0),
      f.uploadRuns.map((rate) => fixed(rate, 0)).join(" / "),
      name === "direct" ? "—" : fixed(f.uploadMibPerSecond / directRate, 2),
      name === "direct" ? "—" : fixed(f.uploadRssGrowthMib, 1),
      name === "direct" ? "—" : fixed(f.uploadPeakRssMb, 1),
      String(f.errors),
    ]);
  }
  return [table(rows), ""];
}

/** The MCP table: a tools/call direct and through the gateway; nothing when `mcp` did not run. */
function mcpLines(mcp: McpFigures | undefined): string[] {
  if (mcp === undefined) return [];
  const at = `@${mcp.connections}`;
  const rows = [["MCP tools/call", "p50 ms", "p99 ms", "added p50", "added p99", `calls/s${at}`, "per round", `p50${at} ms`, `p99${at} ms`, `added p50${at}`, `added p99${at}`, "CPU µs/call", "CPU per round", "server CPU µs/call", "errors"]];
  for (const side of ["direct", "gateway"] as const) {
    const f = mcp[side];
    const direct = side === "direct";
    rows.push([
      direct ? "direct (MCP server)" : "gateway (/mcp/{label})",
      fixed(f.latencyP50Ms, 3),
      fixed(f.latencyP99Ms, 3),
      direct ? "—" : signed(mcp.addedP50Ms),
      direct ? "—" : signed(mcp.addedP99Ms),
      fixed(f.rps, 0),
      f.rpsRounds.map((value) => fixed(value, 0)).join(" / "),
      fixed(f.loadP50Ms, 3),
      fixed(f.loadP99Ms, 3),
      direct ? "—" : signed(mcp.addedLoadP50Ms),
      direct ? "—" : signed(mcp.addedLoadP99Ms),
      fixed(f.cpuUsPerCall, 0),
      f.cpuRounds.map((value) => fixed(value, 0)).join(" / "),
      fixed(f.serverCpuUsPerCall, 0),
      String(f.errors),
    ]);
  }
  return [table(rows), "(CPU µs/call: the MCP server's process for direct, the gateway's for gateway)", ""];
}

/** The profiled load run: each thread's CPU per request, then the top functions by self time. */
export function profileLines(profile: ProfileFigures): string[] {
  const threads = profile.threads.map((thread) => `${thread.name} ${fixed(thread.usPerRequest, 1)}`).join(", ");
  const rows = [["#", "self µs", "µs/req", "%", "function", "where"]];
  profile.functions.forEach((cost, index) => {
    rows.push([String(index + 1), fixed(cost.selfUs, 0), fixed(cost.selfUs / profile.requests, 2), fixed(cost.percent, 1), cost.name, cost.location]);
  });
  return [
    `profile: ${profile.requests} requests at ${fixed(profile.rps, 0)} req/s under the profiler (${profile.intervalUs} µs interval), written to ${profile.file}`,
    `profile: CPU µs per request by thread: ${threads || "n/a"}`,
    ...stageLines(profile),
    `profile: ${profile.samples} samples in the load run, ${fixed(profile.sampledUsPerRequest, 1)} µs/req of the request thread's JavaScript and the runtime calls it made; top ${profile.functions.length} by self time:`,
    table(rows, [4, 5]),
  ];
}

/**
 * The request thread's sampled time by stage, also scaled to the thread's CPU time in the
 * profiled run (the sampler sees the thread while it runs code; the scaled column spreads what it
 * did not see in proportion).
 */
function stageLines(profile: ProfileFigures): string[] {
  const threadCpu = profile.threads.find((thread) => thread.name === "bun")?.usPerRequest ?? Number.NaN;
  const stages = profile.stages.requestThread;
  const sampled = stages.reduce((sum, stage) => sum + stage.usPerRequest, 0);
  const rows = [["request thread by stage", "sampled µs/req", "%", "of thread CPU µs/req"]];
  for (const stage of stages) rows.push([stage.stage, fixed(stage.usPerRequest, 1), fixed(stage.percent, 1), fixed((threadCpu * stage.percent) / 100, 1)]);
  rows.push(["total", fixed(sampled, 1), "100.0", fixed(threadCpu, 1)]);
  return [table(rows), ""];
}

/** Writes the figures as JSON and returns the file's path. */
export function writeResults(root: string, results: Results): string {
  const dir = join(root, "bench-results");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "latest.json");
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
  return path;
}

/**
 * A semantic hit is the exact cache's path plus one embedding round trip and an index search:
 * what it adds over an exact hit must stay within a round trip to the upstream (direct p50) and
 * half a millisecond for the embedding's answer and the search.
 */
function semanticVerdict(semantic: TargetFigures, cache: TargetFigures, direct: TargetFigures): Verdict {
  const added = round(semantic.latencyP50Ms - cache.latencyP50Ms);
  const goal = round(direct.latencyP50Ms + 0.5);
  return { name: "semantic hit p50 − cache hit p50 at 1 connection", value: added, unit: "ms", goal: `≤ ${goal} ms (direct p50 + 0.5)`, pass: added <= goal, kind: "goal" };
}

/** A cache hit never reaches the upstream: it must beat a round trip to it through the thinnest proxy. */
function cacheVerdicts(cache: TargetFigures, floor: TargetFigures): Verdict[] {
  const rps = round(cache.rps / floor.rps, 3);
  const p50 = round(cache.latencyP50Ms - floor.latencyP50Ms);
  return [
    { name: "cache hit rps / floor rps", value: rps, unit: "", goal: "≥ 1", pass: rps >= 1, kind: "goal" },
    { name: "cache hit p50 − floor p50 at 1 connection", value: p50, unit: "ms", goal: "< 0 ms", pass: p50 < 0, kind: "goal" },
  ];
}
