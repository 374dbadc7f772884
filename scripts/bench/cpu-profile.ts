/**
 * Reads a `.cpuprofile` (the Chrome DevTools format `bun --cpu-prof` writes) into self time per
 * function over a window of wall-clock time.
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: CallFrame; children?: number[] }>;
  /** Epoch microseconds under Bun. */
  startTime: number;
  endTime: number;
  /** The node on top of the stack at each sample. */
  samples: number[];
  /** Microseconds from the previous sample (the first: from `startTime`). */
  timeDeltas: number[];
}

export interface FunctionCost {
  name: string;
  /**
   * `path:line` of the function, relative to `root`; for the runtime's own code, `(native)` and
   * the nearest caller with a source (`(native) ← caller path:line`), which says which call it is.
   */
  location: string;
  selfUs: number;
  /** Share of the window's sampled self time, 0–100. */
  percent: number;
  samples: number;
}

export interface ProfileSummary {
  /** Samples taken inside the window. */
  samples: number;
  /** Self time attributed to them, µs: what the sampler saw of JavaScript and the runtime calls it made. */
  sampledUs: number;
  functions: FunctionCost[];
}

/** Pseudo-frames for a thread that is not running code. */
const NOT_WORK = new Set(["(root)", "(idle)", "(program)"]);

/** Where a frame comes from, as `path:line` relative to `root`. */
function location(url: string, lineNumber: number, root: string): string {
  const path = url.startsWith("file://") ? decodeURIComponent(url.slice("file://".length)) : url;
  // Packages by their own path, wherever node_modules is (a linked one resolves elsewhere).
  const packageAt = path.lastIndexOf("/node_modules/");
  const relative = packageAt >= 0 ? path.slice(packageAt + 1) : path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
  return lineNumber >= 0 ? `${relative}:${lineNumber + 1}` : relative;
}

/** Self time per function for the samples taken between `fromUs` and `toUs` (epoch µs, `workSamples`), most first. */
export function selfTimes(profile: CpuProfile, window: { fromUs: number; toUs: number }, options: { intervalUs: number; root: string }): ProfileSummary {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const parents = parentsOf(profile);
  const nameOf = (frame: CallFrame): string => (frame.functionName === "" ? "(anonymous)" : frame.functionName);
  const whereOf = (id: number, frame: CallFrame): string => {
    if (frame.url !== "") return location(frame.url, frame.lineNumber, options.root);
    for (let up = parents.get(id); up !== undefined; up = parents.get(up)) {
      const caller = frames.get(up);
      if (caller !== undefined && caller.url !== "") return `(native) ← ${nameOf(caller)} ${location(caller.url, caller.lineNumber, options.root)}`;
    }
    return "(native)";
  };
  const costs = new Map<string, FunctionCost>();
  let samples = 0;
  let sampledUs = 0;
  for (const { id, us } of workSamples(profile, window, options.intervalUs)) {
    const frame = frames.get(id)!;
    const name = nameOf(frame);
    const where = whereOf(id, frame);
    const key = `${name}\u0000${where}`;
    const cost = costs.get(key) ?? { name, location: where, selfUs: 0, percent: 0, samples: 0 };
    cost.selfUs += us;
    cost.samples += 1;
    costs.set(key, cost);
    samples += 1;
    sampledUs += us;
  }
  const functions = [...costs.values()].sort((a, b) => b.selfUs - a.selfUs);
  for (const cost of functions) cost.percent = sampledUs === 0 ? 0 : (cost.selfUs / sampledUs) * 100;
  return { samples, sampledUs, functions };
}

/** Each node's parent, by id. */
export function parentsOf(profile: CpuProfile): Map<number, number> {
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  return parents;
}

/**
 * The samples taken between `fromUs` and `toUs` (epoch µs) on a thread running code: the node on
 * top of the stack and the time it stands for. A sample counts for the time until the next one;
 * a gap longer than twice the interval is time the thread spent outside JavaScript (idle, or
 * native code the sampler does not see), so such a sample counts for one interval only.
 */
export function* workSamples(profile: CpuProfile, window: { fromUs: number; toUs: number }, intervalUs: number): Generator<{ id: number; us: number }> {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i += 1) {
    at += profile.timeDeltas[i] ?? 0;
    if (at < window.fromUs || at > window.toUs) continue;
    const gap = profile.timeDeltas[i + 1];
    const us = gap !== undefined && gap <= 2 * intervalUs ? gap : intervalUs;
    const id = profile.samples[i] as number;
    const frame = frames.get(id);
    if (frame === undefined || NOT_WORK.has(frame.functionName)) continue;
    yield { id, us };
  }
}
