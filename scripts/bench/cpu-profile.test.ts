import { describe, expect, it } from "vitest";
import { selfTimes, type CpuProfile } from "./cpu-profile.ts";

const ROOT = "/repo";
const frame = (id: number, functionName: string, url: string, lineNumber: number) => ({ id, callFrame: { functionName, url, lineNumber } });

/** Samples every 1000 µs from t = 1,000,000 µs, one frame each, as `bun --cpu-prof` writes them. */
function profileOf(samples: number[], timeDeltas: number[]): CpuProfile {
  return {
    nodes: [
      { ...frame(1, "(root)", "", -1), children: [2, 3, 6] },
      { ...frame(2, "proxyOperation", "file:///repo/src/pipeline/proxy-operation.ts", 63), children: [4] },
      frame(3, "", "file:///elsewhere/node_modules/hono/dist/compose.js", 23),
      frame(4, "fetch", "", -1),
      frame(5, "proxyOperation", "file:///repo/src/pipeline/proxy-operation.ts", 63),
      frame(6, "fetch", "", -1),
    ],
    startTime: 1_000_000,
    endTime: 1_000_000 + timeDeltas.reduce((sum, delta) => sum + delta, 0),
    samples,
    timeDeltas,
  };
}

describe("self time from a .cpuprofile", () => {
  it("sums each function's samples (one function at two nodes counts once), most first, with its file and 1-based line", () => {
    const profile = profileOf([2, 4, 5, 3, 2, 1, 4, 6], [0, 1000, 1000, 1000, 1000, 1000, 1000, 1000]);
    const summary = selfTimes(profile, { fromUs: 0, toUs: Number.POSITIVE_INFINITY }, { intervalUs: 1000, root: ROOT });
    expect(summary.samples).toBe(7);
    expect(summary.sampledUs).toBe(7000);
    expect(summary.functions.map(({ name, location, selfUs, samples }) => ({ name, location, selfUs, samples }))).toEqual([
      { name: "proxyOperation", location: "src/pipeline/proxy-operation.ts:64", selfUs: 3000, samples: 3 },
      // A native function is told apart by its nearest caller with a source.
      { name: "fetch", location: "(native) ← proxyOperation src/pipeline/proxy-operation.ts:64", selfUs: 2000, samples: 2 },
      { name: "(anonymous)", location: "node_modules/hono/dist/compose.js:24", selfUs: 1000, samples: 1 },
      { name: "fetch", location: "(native)", selfUs: 1000, samples: 1 },
    ]);
    expect(summary.functions.map((cost) => Math.round(cost.percent * 10) / 10)).toEqual([42.9, 28.6, 14.3, 14.3]);
  });

  it("keeps only the samples inside the window", () => {
    // Sample times: 1.000, 1.001, 1.002, 1.003, 1.004 s.
    const profile = profileOf([2, 3, 3, 4, 2], [0, 1000, 1000, 1000, 1000]);
    const summary = selfTimes(profile, { fromUs: 1_000_500, toUs: 1_002_500 }, { intervalUs: 1000, root: ROOT });
    expect(summary.functions.map((cost) => [cost.name, cost.samples])).toEqual([["(anonymous)", 2]]);
  });

  it("counts a sample before a long gap (the thread idle or outside JavaScript) as one interval", () => {
    const profile = profileOf([2, 3, 2], [0, 50_000, 1500]);
    const summary = selfTimes(profile, { fromUs: 0, toUs: Number.POSITIVE_INFINITY }, { intervalUs: 1000, root: ROOT });
    // proxyOperation: 1000 (gap of 50 ms capped) + 1000 (last sample); compose: 1500 until the next sample.
    expect(summary.functions.map((cost) => [cost.name, cost.selfUs])).toEqual([
      ["proxyOperation", 2000],
      ["(anonymous)", 1500],
    ]);
  });
});
