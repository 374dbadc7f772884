import { mixtureSprt, normalQuantile, type SequentialTest } from "../analytics/sequential-test.ts";
import type { GuardMetric } from "../records/experiment.ts";
import { logLatencyMoments, meanOf, varianceOf, type Moments } from "../analytics/moments.ts";
import type { VariantTotals } from "../records/variant-totals.ts";

/**
 * The mixing distribution's scale: the difference under test is given a N(0, τ²) prior with
 * τ = MIXING_SCALE per-observation standard deviations (for a proportion, of √(p̄(1 − p̄))).
 * The mSPRT is most efficient for effects near τ at the sample where they become detectable;
 * 0.1 standard deviation (a "small" effect in Cohen's terms is 0.2) suits experiments of
 * hundreds to tens of thousands of requests an arm, and still stops a grossly failing variant
 * within a few dozen of its requests. Chosen once, before looking at any data, as the method asks.
 */
export const MIXING_SCALE = 0.1;

/** Below this many observations in either arm no verdict is given and no guard acts: the variance is a plug-in estimate. */
export const MIN_OBSERVATIONS = 20;

export type Verdict = "better" | "worse" | "inconclusive" | "insufficient_data";

/** One metric of a variant against the control. */
export interface Comparison {
  metric: GuardMetric;
  kind: "difference" | "ratio";
  value: number | null;
  low: number | null;
  high: number | null;
  pValue: number | null;
  verdict: Verdict;
}

/** Whether a larger value of the metric is better (feedback) or worse (errors, latency, cost). */
const HIGHER_IS_BETTER: Record<GuardMetric, boolean> = { error_rate: false, latency: false, cost_per_request: false, feedback_score: true };

const INSUFFICIENT = { value: null, low: null, high: null, pValue: null, verdict: "insufficient_data" as const };

/**
 * A proportion's moments, smoothed by one success and one failure (so that 0 of n still has a
 * variance, Agresti–Caffo style): what the error rate's test reads.
 */
function smoothedProportion(errors: number, requests: number): { p: number; variance: number } {
  const p = (errors + 1) / (requests + 2);
  return { p, variance: p * (1 - p) };
}

/** The test of the difference of two means (variant − control), Welch's variance, τ scaled by the pooled deviation. */
function differenceOfMeans(control: Moments, variant: Moments, alpha: number): SequentialTest | null {
  if (control.n < MIN_OBSERVATIONS || variant.n < MIN_OBSERVATIONS) return null;
  const varianceA = varianceOf(control)!;
  const varianceB = varianceOf(variant)!;
  const pooled = ((control.n - 1) * varianceA + (variant.n - 1) * varianceB) / (control.n + variant.n - 2);
  if (!(pooled > 0)) return null;
  const variance = varianceA / control.n + varianceB / variant.n;
  return mixtureSprt(meanOf(variant)! - meanOf(control)!, variance, MIXING_SCALE * MIXING_SCALE * pooled, alpha);
}

function verdictOf(metric: GuardMetric, test: SequentialTest, alpha: number): Verdict {
  if (test.pValue >= alpha) return "inconclusive";
  const higher = test.low > 0;
  return higher === HIGHER_IS_BETTER[metric] ? "better" : "worse";
}

function fromTest(metric: GuardMetric, test: SequentialTest | null, alpha: number, estimate: number | null): Comparison {
  const kind = metric === "latency" ? "ratio" : "difference";
  if (!test || estimate === null) return { metric, kind, ...INSUFFICIENT };
  const verdict = verdictOf(metric, test, alpha);
  if (metric === "latency") {
    // Tested on log₂ latency: the difference of means is the log of the ratio of geometric means.
    return { metric, kind, value: 2 ** estimate, low: 2 ** test.low, high: 2 ** test.high, pValue: test.pValue, verdict };
  }
  return { metric, kind, value: estimate, low: test.low, high: test.high, pValue: test.pValue, verdict };
}

/**
 * Every metric of `variant` against `control` with always-valid intervals and p-values at level
 * `alpha`: the error rate's difference (a difference of proportions, smoothed), the ratio of
 * geometric mean latencies (a difference of mean log latency), the difference of cost per priced
 * request and of mean feedback score (differences of means).
 */
export function compareVariant(control: VariantTotals, variant: VariantTotals, alpha: number): Comparison[] {
  const comparisons: Comparison[] = [];

  if (control.requests >= MIN_OBSERVATIONS && variant.requests >= MIN_OBSERVATIONS) {
    const a = smoothedProportion(control.errors, control.requests);
    const b = smoothedProportion(variant.errors, variant.requests);
    const pooled = smoothedProportion(control.errors + variant.errors, control.requests + variant.requests);
    const variance = a.variance / control.requests + b.variance / variant.requests;
    const estimate = variant.errors / variant.requests - control.errors / control.requests;
    comparisons.push(fromTest("error_rate", mixtureSprt(estimate, variance, MIXING_SCALE * MIXING_SCALE * pooled.variance, alpha), alpha, estimate));
  } else {
    comparisons.push(fromTest("error_rate", null, alpha, null));
  }

  const latencyA = logLatencyMoments(control.latency);
  const latencyB = logLatencyMoments(variant.latency);
  comparisons.push(fromTest("latency", differenceOfMeans(latencyA, latencyB, alpha), alpha, difference(latencyA, latencyB)));
  comparisons.push(fromTest("cost_per_request", differenceOfMeans(control.cost, variant.cost, alpha), alpha, difference(control.cost, variant.cost)));
  comparisons.push(fromTest("feedback_score", differenceOfMeans(control.feedback, variant.feedback, alpha), alpha, difference(control.feedback, variant.feedback)));
  return comparisons;
}

function difference(control: Moments, variant: Moments): number | null {
  const a = meanOf(control);
  const b = meanOf(variant);
  return a === null || b === null ? null : b - a;
}

/**
 * Whether a comparison shows the metric worse than `tolerance` allows, beyond doubt at every
 * look: its whole always-valid interval lies past the tolerated change in the harmful direction
 * (error rate, cost: difference above `tolerance`; latency: ratio above 1 + `tolerance`;
 * feedback: difference below −`tolerance`).
 */
export function crossesGuard(comparison: Comparison, tolerance: number): boolean {
  if (comparison.verdict === "insufficient_data" || comparison.low === null || comparison.high === null) return false;
  switch (comparison.metric) {
    case "error_rate":
    case "cost_per_request":
      return comparison.low > tolerance;
    case "latency":
      return comparison.low > 1 + tolerance;
    case "feedback_score":
      return comparison.high < -tolerance;
  }
}

/** A value with a plain (one-look) two-sided interval. */
export interface Estimate {
  value: number | null;
  low: number | null;
  high: number | null;
}

const NONE: Estimate = { value: null, low: null, high: null };

/** The z of a two-sided `1 − alpha` interval. */
export function zOf(alpha: number): number {
  return normalQuantile(1 - alpha / 2);
}

/** A mean with its normal interval; nulls without values, a point without two. */
export function meanEstimate(moments: Moments, alpha: number): Estimate {
  const mean = meanOf(moments);
  if (mean === null) return NONE;
  const variance = varianceOf(moments);
  if (variance === null) return { value: mean, low: null, high: null };
  const half = zOf(alpha) * Math.sqrt(variance / moments.n);
  return { value: mean, low: mean - half, high: mean + half };
}

/** A proportion with its Wilson score interval (sound at 0 and at small counts). */
export function proportionEstimate(successes: number, n: number, alpha: number): Estimate {
  if (n === 0) return NONE;
  const z = zOf(alpha);
  const p = successes / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return { value: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
