import type { Histogram } from "../analytics/latency-histogram.ts";
import type { Moments } from "../analytics/moments.ts";

export type { Moments };

/**
 * The sums of one variant's logged requests, as the log store aggregates them (one query, no
 * row read into memory), and of the feedback on its traces. Everything the results and the
 * guards need: no statistic reads a single log.
 */
export interface VariantTotals {
  variant: string;
  requests: number;
  /** Requests with `success` false (an upstream error, a refusal, a timeout). */
  errors: number;
  /** The latency histogram (`latency-histogram.ts`): percentiles, and log latency by bucket. */
  latency: Histogram;
  /** Cost of the priced requests (a request without a price adds nothing, counts nothing). */
  cost: Moments;
  /** Total tokens per request. */
  tokens: Moments;
  promptTokens: number;
  completionTokens: number;
  /** Feedback scores on the variant's traces. */
  feedback: Moments;
}
