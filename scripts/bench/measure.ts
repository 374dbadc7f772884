/**
 * The measurement plan. Targets are interleaved so drift (thermal, noisy neighbours, the
 * gateway's growing log table) hits all of them alike: throughput runs alternate target by
 * target within each round, and sequential requests alternate request by request.
 */
import { chatBody, streamBody } from "./fixtures.ts";
import { createClient, runLoad, timeRequest, type Client, type LoadResult } from "./http-driver.ts";
import type { BenchOptions } from "./options.ts";
import type { Target, TargetName } from "./targets.ts";
import { runWrk, writeWrkScript } from "./wrk.ts";
import { threadCostsByGroup, type ThreadCpu } from "./cpu.ts";

export interface TargetSamples {
  load: LoadResult[];
  /** The target process's own CPU time per request of each load run (all threads), µs. */
  cpuUsPerRequest: number[];
  /** The same per thread group (`threadGroupOf`), µs per request, for each load run. */
  threadUsPerRequest: Array<Record<string, number>>;
  /** Send-to-last-byte of sequential non-streamed requests, ms. */
  latencyMs: number[];
  /** Send-to-first-content-event of sequential streamed requests, ms. */
  firstTokenMs: number[];
  /** Non-200 answers or socket errors in the sequential phases. */
  sequentialErrors: number;
}

export type Samples = Record<TargetName, TargetSamples>;

type LoadRunner = (target: Target, seconds: number) => Promise<LoadResult>;

/** Picks wrk or the built-in driver for throughput; returns the runner and its description. */
export function loadRunner(options: BenchOptions, useWrk: boolean, workDir: string): LoadRunner {
  if (!useWrk) return (target, seconds) => runLoad(target, chatBody, options.connections, seconds);
  const scripts = new Map<TargetName, string>();
  return (target, seconds) => {
    let script = scripts.get(target.name);
    if (script === undefined) {
      script = writeWrkScript(workDir, target, chatBody);
      scripts.set(target.name, script);
    }
    return runWrk(target, script, options.connections, seconds, options.wrkThreads);
  };
}

const rotate = <T>(items: readonly T[], by: number): T[] => items.map((_, i) => items[(i + by) % items.length] as T);
const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
// Lets the gateway's batch writer drain after a load run, so its flush does not land on the next target.
const SETTLE_MS = 1000;

async function sequential(
  clients: Client[],
  samples: Samples,
  count: number,
  body: string,
  stream: boolean,
): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    for (const client of clients) {
      const own = samples[client.target.name];
      const timed = await timeRequest(client, body, stream).catch(() => undefined);
      if (timed === undefined || timed.status !== 200) {
        own.sequentialErrors += 1;
        continue;
      }
      if (stream) {
        if (!Number.isNaN(timed.firstTokenMs)) own.firstTokenMs.push(timed.firstTokenMs);
        else own.sequentialErrors += 1;
      } else {
        own.latencyMs.push(timed.totalMs);
      }
    }
  }
}

/** Short load and a few sequential requests per target, discarded: JIT, pools and caches warm up. */
export async function warmUp(targets: Target[], options: BenchOptions, load: LoadRunner): Promise<void> {
  for (const target of targets) await load(target, options.warmupSeconds);
  await pause(SETTLE_MS);
  const clients = targets.map((target) => createClient(target, 1));
  const scratch = emptySamples(targets);
  await sequential(clients, scratch, 200, chatBody, false);
  await sequential(clients, scratch, 100, streamBody, true);
  for (const client of clients) client.agent.destroy();
}

function emptySamples(targets: Target[]): Samples {
  const samples = {} as Samples;
  for (const target of targets) {
    samples[target.name] = { load: [], cpuUsPerRequest: [], threadUsPerRequest: [], latencyMs: [], firstTokenMs: [], sequentialErrors: 0 };
  }
  return samples;
}

/**
 * Runs every round; `progress` gets one line per step for the console. `cpuSeconds` reads a
 * target's process CPU time and `threadCpu` each of its threads'; both are read again after the
 * settling pause, so the log writes a load run caused count towards it.
 */
export async function measure(
  targets: Target[],
  options: BenchOptions,
  load: LoadRunner,
  progress: (line: string) => void,
  cpuSeconds: (name: TargetName) => number,
  threadCpu: (name: TargetName) => ThreadCpu,
): Promise<Samples> {
  const samples = emptySamples(targets);
  const clients = targets.map((target) => createClient(target, 1));
  const perRound = (total: number): number => Math.ceil(total / options.rounds);
  for (let round = 0; round < options.rounds; round += 1) {
    const order = rotate(targets, round);
    const orderedClients = rotate(clients, round);
    progress(`round ${round + 1}/${options.rounds}: sequential latency and first token (${order.map((t) => t.name).join(", ")})`);
    await sequential(orderedClients, samples, perRound(options.latencyRequests), chatBody, false);
    await sequential(orderedClients, samples, perRound(options.streamRequests), streamBody, true);
    for (const target of order) {
      const cpuBefore = cpuSeconds(target.name);
      const threadsBefore = threadCpu(target.name);
      const result = await load(target, options.seconds);
      progress(`round ${round + 1}/${options.rounds}: ${target.name} ${Math.round(result.rps)} req/s, ${result.errors} errors`);
      await pause(SETTLE_MS);
      const own = samples[target.name];
      own.load.push(result);
      own.cpuUsPerRequest.push(((cpuSeconds(target.name) - cpuBefore) * 1e6) / result.requests);
      own.threadUsPerRequest.push(threadCostsByGroup(threadsBefore, threadCpu(target.name), result.requests));
    }
  }
  for (const client of clients) client.agent.destroy();
  return samples;
}
