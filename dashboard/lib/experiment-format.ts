import { usd } from "./format.ts";
import type { Experiment, ExperimentStopReason, ExperimentVariant, MetricComparison } from "./types.ts";

export type Metric = MetricComparison["metric"];

export const METRIC_LABEL: Record<Metric, string> = {
  error_rate: "Error rate",
  latency: "Latency (geometric mean)",
  cost_per_request: "Cost per request",
  feedback_score: "Feedback score",
};

export const STATUS_CLASS: Record<Experiment["status"], string> = { draft: "neutral", running: "info", stopped: "warn", concluded: "ok" };

export const VERDICT_CLASS: Record<MetricComparison["verdict"], string> = { better: "ok", worse: "bad", inconclusive: "neutral", insufficient_data: "neutral" };

const signed = (value: number, text: string): string => (value > 0 ? `+${text}` : value < 0 ? `−${text.replace(/^-/, "")}` : text);

/** A change against the control as its metric reads: points of error rate, a latency ratio, dollars, score points. */
export function changeFormat(metric: Metric): (value: number) => string {
  switch (metric) {
    case "error_rate":
      return (value) => signed(value, `${(Math.abs(value) * 100).toFixed(1)} pp`);
    case "latency":
      return (value) => `×${value.toFixed(2)}`;
    case "cost_per_request":
      return (value) => signed(value, usd(Math.abs(value)));
    case "feedback_score":
      return (value) => signed(value, Math.abs(value).toFixed(2));
  }
}

/** A guard's tolerance as its metric reads (docs/experiments.md: the worst change tolerated). */
export function toleranceText(metric: Metric, tolerance: number): string {
  switch (metric) {
    case "error_rate":
      return `error rate up by at most ${(tolerance * 100).toFixed(1)} points`;
    case "latency":
      return `latency at most ${Math.round(tolerance * 100)} % slower`;
    case "cost_per_request":
      return `cost per request up by at most ${usd(tolerance)}`;
    case "feedback_score":
      return `feedback score down by at most ${tolerance}`;
  }
}

/** What a variant changes in the request, in words. */
export function variantChanges(variant: ExperimentVariant): string[] {
  const changes: string[] = [];
  if (variant.prompt_label) changes.push(`prompt label ${variant.prompt_label}`);
  if (variant.prompt_version) changes.push(`prompt v${variant.prompt_version}`);
  if (variant.model) changes.push(`model ${variant.model}`);
  if (variant.virtual_key) changes.push(`virtual key ${variant.virtual_key}`);
  if (variant.provider) changes.push(`provider ${variant.provider}`);
  if (variant.params && Object.keys(variant.params).length) changes.push(`params ${JSON.stringify(variant.params)}`);
  return changes;
}

/** Why an experiment stopped, in one line; the API's own sentence is shown beside it. */
export function stopSummary(reason: ExperimentStopReason): string {
  if (reason.kind === "manual") return "Stopped by an admin";
  const metric = reason.metric && reason.metric in METRIC_LABEL ? METRIC_LABEL[reason.metric as Metric].toLowerCase() : (reason.metric ?? "a metric");
  return `Stopped by its guard on ${metric}${reason.variant ? `: variant ${reason.variant} crossed it` : ""}`;
}
