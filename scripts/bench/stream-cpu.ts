/**
 * A streamed chat under load, the pass-through (`gateway`) against the translated one
 * (`anthropic`): each run's gateway CPU time per request, so the cost of translating every
 * event shows apart from the non-streamed figures. Runs alternate target by target per round.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { streamBody } from "./fixtures.ts";
import { runLoad, type LoadResult } from "./http-driver.ts";
import type { BenchOptions } from "./options.ts";
import { median, round } from "./stats.ts";
import type { Target, TargetName } from "./targets.ts";
import { runWrk, writeWrkScript } from "./wrk.ts";

export interface StreamCpuFigures {
  rps: number;
  /** The gateway's CPU time per streamed request (median of the rounds), µs. */
  cpuUsPerRequest: number;
  /** Each round's CPU time per request, µs, to show how noisy the median is. */
  cpuRounds: number[];
  errors: number;
}

export const STREAM_CPU_TARGETS: readonly TargetName[] = ["gateway", "anthropic"];

const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

export async function measureStreamCpu(
  targets: Target[],
  options: BenchOptions,
  useWrk: boolean,
  workDir: string,
  cpuSeconds: (name: TargetName) => number,
  progress: (line: string) => void,
): Promise<Partial<Record<TargetName, StreamCpuFigures>>> {
  const measured = targets.filter((target) => STREAM_CPU_TARGETS.includes(target.name));
  if (measured.length === 0) return {};
  const dir = join(workDir, "stream");
  mkdirSync(dir, { recursive: true });
  const load = (target: Target): Promise<LoadResult> =>
    useWrk ? runWrk(target, writeWrkScript(dir, target, streamBody), options.connections, options.seconds, options.wrkThreads) : runLoad(target, streamBody, options.connections, options.seconds);
  const samples = new Map(measured.map((target) => [target.name, { rps: [] as number[], cpu: [] as number[], errors: 0 }]));
  for (const target of measured) await load(target); // warm-up, discarded
  for (let round = 0; round < options.rounds; round += 1) {
    for (const target of round % 2 === 0 ? measured : [...measured].reverse()) {
      const before = cpuSeconds(target.name);
      const result = await load(target);
      await pause(1000);
      const own = samples.get(target.name)!;
      own.rps.push(result.rps);
      own.cpu.push(((cpuSeconds(target.name) - before) * 1e6) / result.requests);
      own.errors += result.errors;
      progress(`streamed round ${round + 1}/${options.rounds}: ${target.name} ${Math.round(result.rps)} req/s, ${result.errors} errors`);
    }
  }
  const figures: Partial<Record<TargetName, StreamCpuFigures>> = {};
  for (const [name, own] of samples) figures[name] = {
      rps: round(median(own.rps), 0),
      cpuUsPerRequest: round(median(own.cpu), 0),
      cpuRounds: own.cpu.map((value) => round(value, 0)),
      errors: own.errors,
    };
  return figures;
}
