import type { ExperimentResults, MetricComparison, VariantResults } from "../generated/schemas.gen.ts";
import { valueAtRank, type Histogram } from "../analytics/latency-histogram.ts";
import { logLatencyMoments } from "../analytics/moments.ts";
import { controlOf, type ExperimentRecord } from "../records/experiment.ts";
import type { VariantTotals } from "../records/variant-totals.ts";
import { emptyTotals } from "../store/experiment-outcomes-repository.ts";
import { compareVariant, crossesGuard, meanEstimate, proportionEstimate, zOf, type Comparison, type Estimate } from "./experiment-statistics.ts";

export const METHOD =
  "Always-valid mixture sequential probability ratio test (Johari et al.) on the difference of means against the control, normal mixture with τ = 0.1 per-observation standard deviations; error rate as a difference of proportions, latency as the difference of mean log latency (a ratio of geometric means), cost per priced request and feedback score as differences of means.";

/** Each variant's totals, in the experiment's order, empty ones for variants without a log yet. */
export function totalsInOrder(experiment: ExperimentRecord, totals: readonly VariantTotals[]): VariantTotals[] {
  return experiment.variants.map((variant) => totals.find((candidate) => candidate.variant === variant.name) ?? emptyTotals(variant.name));
}

/** Every variant but the control, compared with it. */
export function comparisonsOf(experiment: ExperimentRecord, ordered: readonly VariantTotals[]): Array<{ variant: string; comparisons: Comparison[] }> {
  const [control, ...others] = ordered;
  return others.map((variant) => ({ variant: variant.variant, comparisons: compareVariant(control!, variant, experiment.alpha) }));
}

/** `GET /v1/experiments/{id}/results` from the variants' totals. */
export function experimentResults(experiment: ExperimentRecord, totals: readonly VariantTotals[], now: string): ExperimentResults {
  const ordered = totalsInOrder(experiment, totals);
  const control = controlOf(experiment).name;
  const guards = new Map(experiment.guards.map((guard) => [guard.metric, guard.tolerance]));
  return {
    object: "experiment.results",
    experiment_id: experiment.id,
    status: experiment.status,
    alpha: experiment.alpha,
    method: METHOD,
    control,
    variants: ordered.map((variant, index) => variantResults(variant, experiment.variants[index]!.weight, variant.variant === control, experiment.alpha)),
    comparisons: comparisonsOf(experiment, ordered).map(({ variant, comparisons }) => ({
      variant,
      metrics: comparisons.map((comparison): MetricComparison => {
        const tolerance = guards.get(comparison.metric);
        return {
          metric: comparison.metric,
          kind: comparison.kind,
          value: comparison.value,
          low: finite(comparison.low),
          high: finite(comparison.high),
          p_value: comparison.pValue,
          verdict: comparison.verdict,
          guard: tolerance === undefined ? null : { tolerance, crossed: crossesGuard(comparison, tolerance) },
        };
      }),
    })),
    stop_reason: experiment.stopReason,
    computed_at: now,
  };
}

function finite(value: number | null): number | null {
  return value === null || !Number.isFinite(value) ? null : value;
}

function variantResults(totals: VariantTotals, weight: number, control: boolean, alpha: number): VariantResults {
  return {
    variant: totals.variant,
    control,
    weight,
    requests: totals.requests,
    errors: totals.errors,
    error_rate: proportionEstimate(totals.errors, totals.requests, alpha),
    latency_ms: {
      p50: percentileEstimate(totals.latency, 0.5, alpha),
      p95: percentileEstimate(totals.latency, 0.95, alpha),
      geometric_mean: geometricMean(totals.latency, alpha),
    },
    cost_usd: totals.cost.sum,
    cost_per_request_usd: meanEstimate(totals.cost, alpha),
    tokens: { prompt: totals.promptTokens, completion: totals.completionTokens, total: totals.tokens.sum, per_request: meanEstimate(totals.tokens, alpha) },
    feedback: { count: totals.feedback.n, mean: meanEstimate(totals.feedback, alpha) },
  };
}

/**
 * A quantile with its distribution-free interval: the values at the ranks a Binomial(n, q)
 * count of values below the quantile spans at `1 − alpha` (normal approximation), read from the
 * histogram like the quantile itself.
 */
export function percentileEstimate(histogram: Histogram, q: number, alpha: number): Estimate {
  const n = histogram.counts.reduce((sum, count) => sum + count, 0);
  if (n === 0) return { value: null, low: null, high: null };
  const spread = zOf(alpha) * Math.sqrt(n * q * (1 - q));
  const rank = (value: number) => Math.min(n, Math.max(1, value));
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    value: round(valueAtRank(histogram, rank(Math.ceil(q * n)))),
    low: round(valueAtRank(histogram, rank(Math.floor(n * q - spread)))),
    high: round(valueAtRank(histogram, rank(Math.ceil(n * q + spread) + 1))),
  };
}

/** The geometric mean latency with its interval, from the mean log latency. */
function geometricMean(histogram: Histogram, alpha: number): Estimate {
  const estimate = meanEstimate(logLatencyMoments(histogram), alpha);
  const back = (value: number | null) => (value === null ? null : Math.round(2 ** value * 100) / 100);
  return { value: back(estimate.value), low: back(estimate.low), high: back(estimate.high) };
}
