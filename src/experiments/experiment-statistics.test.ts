import { describe, expect, it } from "vitest";
import { bucketOf } from "../analytics/latency-histogram.ts";
import type { VariantTotals } from "../records/variant-totals.ts";
import { emptyTotals } from "../store/experiment-outcomes-repository.ts";
import { compareVariant, crossesGuard, MIN_OBSERVATIONS, proportionEstimate } from "./experiment-statistics.ts";
import { percentileEstimate } from "./experiment-results.ts";

/**
 * The statistics driven by simulated traffic of the shape the log store sums (`VariantTotals`),
 * seeded: the A/A false-verdict rate and the power are measured over 200 runs each, which
 * through the gateway itself would take hours (test/experiments.test.ts runs a smaller A/A and
 * a real difference end to end).
 */

/** mulberry32: a small seeded generator, so every run of the suite sees the same traffic. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** What a variant's requests look like: an error rate, log-normal latency, a cost by tokens, ±1 feedback on 30 % of traces. */
interface Arm {
  errorRate: number;
  medianMs: number;
  costPerToken: number;
  goodFeedback: number;
}

const CONTROL: Arm = { errorRate: 0.05, medianMs: 400, costPerToken: 1e-5, goodFeedback: 0.7 };

/** One request of an arm, summed into its totals as the store's aggregate query sums a log. */
function addRequest(totals: VariantTotals, arm: Arm, random: () => number): void {
  totals.requests += 1;
  const failed = random() < arm.errorRate;
  if (failed) totals.errors += 1;
  const latency = arm.medianMs * Math.exp(0.6 * gaussian(random));
  totals.latency.counts[bucketOf(latency)]! += 1;
  totals.latency.min = Math.min(totals.latency.min ?? latency, latency);
  totals.latency.max = Math.max(totals.latency.max ?? latency, latency);
  const tokens = failed ? 0 : Math.round(50 + 200 * random());
  const cost = tokens * arm.costPerToken;
  totals.cost.n += 1;
  totals.cost.sum += cost;
  totals.cost.squares += cost * cost;
  totals.tokens.n += 1;
  totals.tokens.sum += tokens;
  totals.tokens.squares += tokens * tokens;
  if (random() < 0.3) {
    const score = random() < arm.goodFeedback ? 1 : -1;
    totals.feedback.n += 1;
    totals.feedback.sum += score;
    totals.feedback.squares += score * score;
  }
}

/**
 * `runs` experiments of `requests` requests each, split 50/50 between the control and `treatment`,
 * the results read after every `every` requests: per metric, the share of runs in which some look
 * gave a verdict (`better` or `worse`), and the share with a verdict on any metric.
 */
function simulate(runs: number, requests: number, every: number, treatment: Arm, seed: number) {
  const runsWithVerdict: Record<string, number> = { error_rate: 0, latency: 0, cost_per_request: 0, feedback_score: 0 };
  let anyVerdict = 0;
  for (let run = 0; run < runs; run++) {
    const random = seeded(seed * 100_003 + run);
    const control = emptyTotals("control");
    const variant = emptyTotals("treatment");
    const decided = new Set<string>();
    for (let request = 1; request <= requests; request++) {
      if (random() < 0.5) addRequest(variant, treatment, random);
      else addRequest(control, CONTROL, random);
      if (request % every !== 0) continue;
      for (const comparison of compareVariant(control, variant, 0.05)) {
        if (comparison.verdict === "better" || comparison.verdict === "worse") decided.add(comparison.metric);
      }
    }
    for (const metric of decided) runsWithVerdict[metric]! += 1;
    if (decided.size > 0) anyVerdict += 1;
  }
  return { any: anyVerdict / runs, perMetric: Object.fromEntries(Object.entries(runsWithVerdict).map(([metric, count]) => [metric, count / runs])) };
}

describe("an A/A experiment read every 50 requests", () => {
  it("declares a winner in at most 5 % of 200 runs (2,000 requests each), on any metric", () => {
    const { any, perMetric } = simulate(200, 2_000, 50, CONTROL, 1);
    for (const rate of Object.values(perMetric)) expect(rate).toBeLessThanOrEqual(0.05);
    expect(any).toBeLessThanOrEqual(0.05);
  });
});

describe("a real difference", () => {
  it("an error rate of 10 % against 5 % is found worse in at least 85 % of 200 runs of 2,000 requests", () => {
    const { perMetric } = simulate(200, 2_000, 50, { ...CONTROL, errorRate: 0.1 }, 2);
    expect(perMetric.error_rate).toBeGreaterThanOrEqual(0.85);
  });

  it("a 20 % slower median is found in at least 95 % of 200 runs of 2,000 requests", () => {
    const { perMetric } = simulate(200, 2_000, 50, { ...CONTROL, medianMs: 480 }, 3);
    expect(perMetric.latency).toBeGreaterThanOrEqual(0.95);
  });

  it("feedback of 80 % good against 70 % (mean score 0.6 against 0.4) is found in at least 80 % of 200 runs of 4,000 requests", () => {
    const { perMetric } = simulate(200, 4_000, 50, { ...CONTROL, goodFeedback: 0.8 }, 4);
    expect(perMetric.feedback_score).toBeGreaterThanOrEqual(0.8);
  });
});

describe("guards", () => {
  /** Requests alternate; the treatment's fail from its `healthy`-th on. Resolves to how many failed before the guard crossed. */
  function failuresUntilStopped(healthy: number, tolerance: number): { failures: number; requests: number } {
    const control = emptyTotals("control");
    const treatment = emptyTotals("treatment");
    const ok = { ...CONTROL, errorRate: 0 };
    const random = seeded(9);
    for (let request = 1; request <= 10_000; request++) {
      if (request % 2 === 0) {
        addRequest(treatment, { ...ok, errorRate: treatment.requests >= healthy ? 1 : 0 }, random);
      } else {
        addRequest(control, ok, random);
      }
      const errorRate = compareVariant(control, treatment, 0.05).find((comparison) => comparison.metric === "error_rate")!;
      if (crossesGuard(errorRate, tolerance)) return { failures: treatment.errors, requests: request };
    }
    throw new Error("never crossed");
  }

  it("a treatment that starts failing crosses a 5-point error-rate guard within 30 of its failed requests", () => {
    expect(failuresUntilStopped(0, 0.05).failures).toBeLessThanOrEqual(MIN_OBSERVATIONS);
    expect(failuresUntilStopped(50, 0.05).failures).toBeLessThanOrEqual(30);
    expect(failuresUntilStopped(200, 0.05).failures).toBeLessThanOrEqual(60);
  });

  it("is not crossed by a difference within the tolerance", () => {
    const control = emptyTotals("control");
    const treatment = emptyTotals("treatment");
    const random = seeded(11);
    for (let request = 0; request < 20_000; request++) addRequest(request % 2 ? treatment : control, request % 2 ? { ...CONTROL, errorRate: 0.07 } : CONTROL, random);
    const errorRate = compareVariant(control, treatment, 0.05).find((comparison) => comparison.metric === "error_rate")!;
    expect(errorRate.verdict).toBe("worse");
    expect(crossesGuard(errorRate, 0.05)).toBe(false);
  });

  it("gives no verdict below the minimum sample", () => {
    const control = emptyTotals("control");
    const treatment = emptyTotals("treatment");
    const random = seeded(12);
    for (let request = 0; request < 2 * MIN_OBSERVATIONS - 2; request++) addRequest(request % 2 ? treatment : control, { ...CONTROL, errorRate: request % 2 ? 1 : 0 }, random);
    expect(compareVariant(control, treatment, 0.05).every((comparison) => comparison.verdict === "insufficient_data")).toBe(true);
  });
});

describe("one-look intervals", () => {
  it("Wilson's interval for a proportion, sound at 0", () => {
    expect(proportionEstimate(0, 0, 0.05)).toEqual({ value: null, low: null, high: null });
    const none = proportionEstimate(0, 100, 0.05);
    expect(none.value).toBe(0);
    expect(none.low).toBe(0);
    expect(none.high).toBeCloseTo(0.037, 3);
    const half = proportionEstimate(50, 100, 0.05);
    expect(half.low).toBeCloseTo(0.4038, 3);
    expect(half.high).toBeCloseTo(0.5962, 3);
  });

  it("a percentile's interval holds the true percentile about 1 − alpha of the time", () => {
    let covered = 0;
    const random = seeded(13);
    for (let run = 0; run < 400; run++) {
      const totals = emptyTotals("v");
      for (let i = 0; i < 500; i++) addRequest(totals, { ...CONTROL, errorRate: 0 }, random);
      const p95 = percentileEstimate(totals.latency, 0.95, 0.05);
      // The true p95 of 400·e^(0.6·Z) is 400·e^(0.6·1.645); the histogram reads within its buckets' 12 %.
      const truth = 400 * Math.exp(0.6 * 1.6449);
      if (p95.low! <= truth * 1.12 && p95.high! >= truth / 1.12) covered += 1;
    }
    expect(covered / 400).toBeGreaterThanOrEqual(0.93);
  });
});
