import { describe, expect, it } from "vitest";
import type { OperationFigures } from "./operations.ts";
import { readOptions } from "./options.ts";
import { render, verdicts, type Results, type TargetFigures } from "./report.ts";

function target(overrides: Partial<TargetFigures>): TargetFigures {
  return {
    rps: 10_000,
    rpsRounds: [10_000],
    cpuUsPerRequest: 50,
    threadsUsPerRequest: {},
    loadErrors: 0,
    latencyP50Ms: 0.3,
    latencyP99Ms: 1,
    latencySamples: 100,
    firstTokenP50Ms: 0.3,
    firstTokenSamples: 100,
    sequentialErrors: 0,
    addedP50Ms: 0.1,
    addedP99Ms: 0.5,
    addedFirstTokenMs: 0.1,
    startRssMb: 50,
    idleRssMb: 60,
    peakRssMb: 100,
    ...overrides,
  };
}

const upload = (growth: number): OperationFigures => ({
  firstEventP50Ms: 0.4,
  firstEventSamples: 10,
  uploadMibPerSecond: 500,
  uploadRuns: [500],
  uploadRssGrowthMib: growth,
  uploadPeakRssMb: 120,
  errors: 0,
});

/** Figures that meet every goal, each changed by `edit`. */
function figures(edit: (targets: Results["targets"], streamCpu: Results["streamCpu"]) => void = () => {}) {
  const targets: Results["targets"] = {
    direct: target({ cpuUsPerRequest: 10 }),
    floor: target({ rps: 15_000, latencyP50Ms: 0.35, cpuUsPerRequest: 30 }),
    logged: target({ rps: 12_000, cpuUsPerRequest: 70 }),
    gateway: target({ rps: 9_000, cpuUsPerRequest: 90 }),
    cache: target({ rps: 16_000, latencyP50Ms: 0.3 }),
    limited: target({ cpuUsPerRequest: 110 }),
    anthropic: target({ cpuUsPerRequest: 100 }),
  };
  const streamCpu: Results["streamCpu"] = {
    gateway: { rps: 8_000, cpuUsPerRequest: 110, cpuRounds: [110], errors: 0 },
    anthropic: { rps: 7_000, cpuUsPerRequest: 130, cpuRounds: [130], errors: 0 },
  };
  edit(targets, streamCpu);
  return verdicts(targets, { direct: upload(Number.NaN), gateway: upload(10) }, streamCpu);
}

const verdict = (list: ReturnType<typeof verdicts>, name: string) => list.find((item) => item.name === name);

describe("bench verdicts", () => {
  it("hold the gateway to every goal, and pass figures that meet them", () => {
    const list = figures();
    expect(list.map((item) => item.name)).toEqual([
      "gateway CPU per plain chat request, all threads",
      "gateway rps / floor rps",
      "cache hit rps / floor rps",
      "cache hit p50 − floor p50 at 1 connection",
      "limited CPU/req / gateway CPU/req",
      "added p99 at 1 connection",
      "added p50 at 1 connection",
      "gateway peak RSS under the chat load",
      "gateway idle RSS after warm-up",
      "gateway RSS growth during a 100 MiB upload",
      "streamed chat CPU/req / plain chat CPU/req",
      "anthropic CPU/req / plain chat CPU/req",
      "anthropic stream CPU/req / pass-through stream CPU/req",
      "budget: gateway CPU/req / logging floor CPU/req",
      "budget: gateway rps / logging floor rps",
      "budget: cache hit rps / logging floor rps",
      "budget: gateway peak RSS under the chat load",
      "budget: gateway idle RSS after warm-up",
    ]);
    expect(list.filter((item) => !item.pass)).toEqual([]);
    expect(list.filter((item) => item.kind === "budget")).toHaveLength(5);
  });

  it.each([
    ["budget: gateway CPU/req / logging floor CPU/req", (t: Results["targets"]) => (t.gateway!.cpuUsPerRequest = 190), 2.714],
    ["budget: gateway rps / logging floor rps", (t: Results["targets"]) => (t.gateway!.rps = 4_500), 0.375],
    ["budget: cache hit rps / logging floor rps", (t: Results["targets"]) => (t.cache!.rps = 5_000), 0.417],
    ["budget: gateway peak RSS under the chat load", (t: Results["targets"]) => (t.gateway!.peakRssMb = 290), 290],
    ["budget: gateway idle RSS after warm-up", (t: Results["targets"]) => (t.gateway!.idleRssMb = 170), 170],
  ])("miss %s past the budget", (name, edit, value) => {
    expect(verdict(figures(edit), name)).toMatchObject({ value, pass: false, kind: "budget" });
  });

  it("leave the budget's ratios out when the logging floor was not measured", () => {
    const names = figures((t) => delete t.logged).map((item) => item.name);
    expect(names).not.toContain("budget: gateway CPU/req / logging floor CPU/req");
    expect(names).toContain("budget: gateway peak RSS under the chat load");
  });

  it.each([
    ["gateway CPU per plain chat request, all threads", (t: Results["targets"]) => (t.gateway!.cpuUsPerRequest = 101), 101],
    ["limited CPU/req / gateway CPU/req", (t: Results["targets"]) => (t.limited!.cpuUsPerRequest = 118), 1.311],
    ["added p99 at 1 connection", (t: Results["targets"]) => (t.gateway!.addedP99Ms = 1.2), 1.2],
    ["gateway idle RSS after warm-up", (t: Results["targets"]) => (t.gateway!.idleRssMb = 71), 71],
    ["gateway peak RSS under the chat load", (t: Results["targets"]) => (t.gateway!.peakRssMb = 151), 151],
    ["anthropic CPU/req / plain chat CPU/req", (t: Results["targets"]) => (t.anthropic!.cpuUsPerRequest = 110), 1.222],
  ])("miss %s past its bound", (name, edit, value) => {
    const found = verdict(figures(edit), name);
    expect(found).toMatchObject({ value, pass: false });
  });

  it("miss a streamed chat that costs more against the plain path than its bound", () => {
    const found = verdict(
      figures((_, streamCpu) => (streamCpu.gateway!.cpuUsPerRequest = 200)),
      "streamed chat CPU/req / plain chat CPU/req",
    );
    expect(found).toMatchObject({ value: 2.222, pass: false });
  });

  it("miss a figure that could not be read (NaN), rather than pass it", () => {
    expect(verdict(figures((t) => (t.gateway!.idleRssMb = Number.NaN)), "gateway idle RSS after warm-up")?.pass).toBe(false);
  });

  it("show each verdict as PASS or MISS in the report", () => {
    const list = figures((t) => (t.gateway!.cpuUsPerRequest = 250));
    const results = {
      finishedAt: "2026-01-01T00:00:00.000Z",
      drivers: { throughput: "wrk", latency: "node:http" },
      environment: { cpus: 2, node: "v20", bun: "1.4.5", platform: "linux-x64", loadAverage: { start: 0.1, end: 1.9 } },
      options: readOptions([]),
      targets: {},
      operations: {},
      streamCpu: {},
      verdicts: list,
    } satisfies Results;
    const text = render(results);
    expect(text).toContain("MISS  gateway CPU per plain chat request, all threads: 250 µs (goal ≤ 100 µs)");
    expect(text).toContain("PASS  added p99 at 1 connection: 0.500 ms (goal ≤ 1 ms)");
    expect(text).toContain("MISS  budget: gateway CPU/req / logging floor CPU/req: 3.571 (≤ 2.6)");
    expect(text).toContain("load average 0.10 at the start, 1.90 at the end");
    expect(text).not.toContain("busy before the bench began");
    const split = render({ ...results, targets: { floor: target({ rps: 20_000, cpuUsPerRequest: 26 }), logged: target({ rps: 9_000, cpuUsPerRequest: 70 }), gateway: target({ cpuUsPerRequest: 161 }) } });
    expect(split).toContain("note  CPU per request: floor 26 µs, logging floor 70 µs (rps 0.450 × floor), gateway 161 µs: 44 µs to log, 91 µs of machinery");
    expect(text).not.toContain("note  CPU per request");
    const busy = render({ ...results, environment: { ...results.environment, loadAverage: { start: 6.4, end: 7 } } });
    expect(busy).toContain("load average 6.40 at the start, 7.00 at the end (busy before the bench began: compare only with runs made beside this one on 2 CPUs)");
  });
});

describe("bench options", () => {
  it("profile with --profile or BENCH_PROFILE=1, and refuse other arguments", () => {
    expect(readOptions([]).profile).toBe(false);
    expect(readOptions(["--profile"]).profile).toBe(true);
    expect(() => readOptions(["--profil"])).toThrow(/unknown argument --profil/);
  });
});
