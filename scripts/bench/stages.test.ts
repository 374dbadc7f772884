import { describe, expect, it } from "vitest";
import type { CpuProfile } from "./cpu-profile.ts";
import { threadCostsByGroup, threadGroupOf } from "./cpu.ts";
import { REQUEST_THREAD_STAGES, RUNTIME_STAGE, stageTimes } from "./stages.ts";

const frame = (id: number, functionName: string, url: string, children?: number[]) => ({ id, callFrame: { functionName, url, lineNumber: 1 }, ...(children ? { children } : {}) });

/** A request thread's profile: a native fetch under the pinned fetch under the routing loop, a JSON.parse under the request reader, and native work with no caller. */
const profile: CpuProfile = {
  nodes: [
    frame(1, "(root)", "", [2, 5, 7, 8]),
    frame(2, "tryTargets", "file:///repo/src/pipeline/routing-loop.ts", [3]),
    frame(3, "bunFetch", "file:///repo/src/net/pinned-fetch.ts", [4]),
    frame(4, "fetch", ""),
    frame(5, "readRequest", "file:///repo/src/routes/proxy/request-reader.ts", [6]),
    frame(6, "parse", ""),
    frame(7, "", ""),
    frame(8, "dispatch", "file:///x/node_modules/hono/dist/compose.js"),
  ],
  startTime: 0,
  endTime: 8000,
  samples: [4, 4, 2, 6, 7, 7, 8, 4],
  timeDeltas: [0, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
};

describe("a profile's time by stage of the request path", () => {
  it("gives each sample to the stage of the innermost claimed frame on its stack, the rest to the runtime", () => {
    const stages = stageTimes(profile, { fromUs: 0, toUs: Number.POSITIVE_INFINITY }, { intervalUs: 1000, requests: 2, rules: REQUEST_THREAD_STAGES });
    expect(stages.map(({ stage, usPerRequest, percent }) => [stage, usPerRequest, percent])).toEqual([
      ["reading the request (body, checks)", 500, 12.5],
      ["routing loop", 500, 12.5],
      ["upstream call", 1500, 37.5],
      ["HTTP router and middleware", 500, 12.5],
      [RUNTIME_STAGE, 1000, 25],
    ]);
  });
});

describe("CPU by thread group", () => {
  it("names Bun's threads for what they do and sums each group's CPU per request", () => {
    expect(["bun", "Worker", "HTTP Client", "JITWorker", "JSCWarmUp", "HeapHelper", "mi-scavenger", "Bun Pool 0"].map(threadGroupOf)).toEqual([
      "request thread",
      "log worker",
      "HTTP client",
      "JIT compiler",
      "JIT compiler",
      "GC and allocator",
      "GC and allocator",
      "other",
    ]);
    const before = new Map([[1, { name: "bun", seconds: 1 }], [2, { name: "JITWorker", seconds: 0.5 }]]);
    const after = new Map([[1, { name: "bun", seconds: 1.2 }], [2, { name: "JITWorker", seconds: 0.55 }], [3, { name: "JSCWarmUp", seconds: 0.05 }]]);
    const costs = threadCostsByGroup(before, after, 1000);
    expect(costs["request thread"]).toBeCloseTo(200, 6);
    expect(costs["JIT compiler"]).toBeCloseTo(100, 6);
  });
});
