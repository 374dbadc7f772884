/** Turns samples into figures, verdicts, a console table and bench-results/latest.json. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Samples } from "./measure.ts";
import { UPLOAD_MIB, type OperationFigures } from "./operations.ts";
import type { BenchOptions } from "./options.ts";
import { median, quantile, round } from "./stats.ts";
import type { StreamCpuFigures } from "./stream-cpu.ts";
import type { TargetName } from "./targets.ts";

export interface TargetFigures {
  rps: number;
  rpsRounds: number[];
  /** The target's own CPU time per request under load (all its threads), µs: median of the rounds. */
  cpuUsPerRequest: number;
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
  peakRssMb: number;
}

export interface Verdict {
  name: string;
  value: number;
  unit: string;
  goal: string;
  pass: boolean;
}

export interface Results {
  finishedAt: string;
  drivers: { throughput: string; latency: string };
  environment: { cpus: number; node: string; bun: string; platform: string };
  options: BenchOptions;
  targets: Partial<Record<TargetName, TargetFigures>>;
  /** The Responses stream and the upload, direct and gateway. */
  operations: Partial<Record<TargetName, OperationFigures>>;
  /** A streamed chat under load: the pass-through and the Anthropic translation. */
  streamCpu: Partial<Record<TargetName, StreamCpuFigures>>;
  verdicts: Verdict[];
}

export function summarize(samples: Samples, peakRss: Partial<Record<TargetName, number>>): Results["targets"] {
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
      peakRssMb: round(peakRss[name] ?? Number.NaN, 1),
    };
  }
  return figures;
}

/** The goals the gateway is held to; empty when the gateway was not measured. */
export function verdicts(targets: Results["targets"], operations: Results["operations"] = {}, streamCpu: Results["streamCpu"] = {}): Verdict[] {
  const { gateway, floor, cache } = targets;
  const list: Verdict[] = cache && floor ? cacheVerdicts(cache, floor) : [];
  if (streamCpu.anthropic && streamCpu.gateway) {
    // Translating every event of a stream may cost CPU, but not more than half again the pass-through's.
    const ratio = round(streamCpu.anthropic.cpuUsPerRequest / streamCpu.gateway.cpuUsPerRequest, 3);
    list.push({ name: "anthropic stream CPU/req / pass-through stream CPU/req", value: ratio, unit: "", goal: "≤ 1.5", pass: ratio <= 1.5 });
  }
  if (gateway === undefined) return list;
  if (floor !== undefined) {
    const ratio = round(gateway.rps / floor.rps, 3);
    list.push({ name: "gateway rps / floor rps", value: ratio, unit: "", goal: "≥ 0.5", pass: ratio >= 0.5 });
  }
  list.push({
    name: "added p50 at 1 connection",
    value: gateway.addedP50Ms,
    unit: "ms",
    goal: "≤ 0.2 ms",
    pass: gateway.addedP50Ms <= 0.2,
  });
  list.push({
    name: "gateway peak RSS",
    value: gateway.peakRssMb,
    unit: "MB",
    goal: "≤ 150 MB",
    pass: gateway.peakRssMb <= 150,
  });
  const growth = operations.gateway?.uploadRssGrowthMib;
  if (growth !== undefined) {
    list.push({ name: `gateway RSS growth during a ${UPLOAD_MIB} MiB upload`, value: growth, unit: "MiB", goal: "≤ 32 MiB", pass: growth <= 32 });
  }
  return list;
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? [];
  return rows
    .map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join("  "))
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
      fixed(f.peakRssMb, 1),
    ]);
  }
  const lines = [
    `throughput driver: ${results.drivers.throughput}`,
    `latency driver:    ${results.drivers.latency}`,
    `machine: ${results.environment.cpus} CPUs, node ${results.environment.node}, bun ${results.environment.bun}`,
    "",
    table(rows),
    "",
    ...streamCpuLines(results.streamCpu),
    ...operationLines(results.operations),
  ];
  if (results.verdicts.length === 0) lines.push("gateway not measured: no verdicts");
  for (const verdict of results.verdicts) {
    const value = `${fixed(verdict.value, verdict.unit === "MB" || verdict.unit === "MiB" ? 1 : 3)}${verdict.unit === "" ? "" : ` ${verdict.unit}`}`;
    lines.push(`${verdict.pass ? "PASS" : "MISS"}  ${verdict.name}: ${value} (goal ${verdict.goal})`);
  }
  const { gateway, floor } = results.targets;
  if (gateway !== undefined && floor !== undefined) {
    // The added-p50 goal counts the hop itself, which no gateway on this runtime avoids.
    lines.push(`note  at 1 connection the floor adds ${signed(floor.addedP50Ms)} ms p50; the gateway adds ${signed(round(gateway.addedP50Ms - floor.addedP50Ms))} ms over the floor`);
  }
  return lines.join("\n");
}

/** The streamed-chat table (pass-through and translated); nothing when neither was measured. */
function streamCpuLines(streamCpu: Results["streamCpu"]): string[] {
  const entries = Object.entries(streamCpu) as Array<[TargetName, StreamCpuFigures]>;
  if (entries.length === 0) return [];
  const rows = [["streamed chat", "rps", "CPU µs/req", "errors"]];
  for (const [name, f] of entries) rows.push([name, fixed(f.rps, 0), fixed(f.cpuUsPerRequest, 0), String(f.errors)]);
  return [table(rows), ""];
}

/** The Responses stream and upload table, direct and gateway; nothing when neither was measured. */
function operationLines(operations: Results["operations"]): string[] {
  const entries = Object.entries(operations) as Array<[TargetName, OperationFigures]>;
  if (entries.length === 0) return [];
  const directFirst = operations.direct?.firstEventP50Ms ?? Number.NaN;
  const directRate = operations.direct?.uploadMibPerSecond ?? Number.NaN;
  const rows = [["target", "Responses 1st event p50 ms", "added", `${UPLOAD_MIB} MiB upload MiB/s`, "per run", "vs direct", "RSS growth MiB", "errors"]];
  for (const [name, f] of entries) {
    rows.push([
      name,
      fixed(f.firstEventP50Ms, 3),
      name === "direct" ? "—" : signed(round(f.firstEventP50Ms - directFirst)),
      fixed(f.uploadMibPerSecond, 0),
      f.uploadRuns.map((rate) => fixed(rate, 0)).join(" / "),
      name === "direct" ? "—" : fixed(f.uploadMibPerSecond / directRate, 2),
      name === "direct" ? "—" : fixed(f.uploadRssGrowthMib, 1),
      String(f.errors),
    ]);
  }
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

/** A cache hit never reaches the upstream: it must beat a round trip to it through the thinnest proxy. */
function cacheVerdicts(cache: TargetFigures, floor: TargetFigures): Verdict[] {
  const rps = round(cache.rps / floor.rps, 3);
  const p50 = round(cache.latencyP50Ms - floor.latencyP50Ms);
  return [
    { name: "cache hit rps / floor rps", value: rps, unit: "", goal: "≥ 1", pass: rps >= 1 },
    { name: "cache hit p50 − floor p50 at 1 connection", value: p50, unit: "ms", goal: "< 0 ms", pass: p50 < 0 },
  ];
}
