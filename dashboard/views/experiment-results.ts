import { html } from "../lib/html.ts";
import { int, ms, percent, shortTime, usd } from "../lib/format.ts";
import { href } from "../lib/route.ts";
import { changeFormat, METRIC_LABEL, VERDICT_CLASS } from "../lib/experiment-format.ts";
import type { Estimate, ExperimentResults, MetricComparison, VariantResults } from "../lib/types.ts";
import { Interval, scaleOf } from "../components/interval.ts";
import { Panel } from "../components/ui.ts";

interface Column {
  label: string;
  estimate: (variant: VariantResults) => Estimate;
  format: (value: number) => string;
  /** What the column's figure says beneath the interval. */
  note?: (variant: VariantResults) => string;
}

const COLUMNS: Column[] = [
  { label: "Error rate", estimate: (variant) => variant.error_rate, format: percent, note: (variant) => `${int(variant.errors)} errors` },
  { label: "Latency p50", estimate: (variant) => variant.latency_ms.p50, format: ms },
  { label: "Latency p95", estimate: (variant) => variant.latency_ms.p95, format: ms },
  { label: "Cost per request", estimate: (variant) => variant.cost_per_request_usd, format: usd, note: (variant) => `${usd(variant.cost_usd)} in all` },
  { label: "Tokens per request", estimate: (variant) => variant.tokens.per_request, format: (value) => value.toFixed(1), note: (variant) => `${int(variant.tokens.prompt)} in · ${int(variant.tokens.completion)} out` },
  { label: "Feedback mean", estimate: (variant) => variant.feedback.mean, format: (value) => value.toFixed(2), note: (variant) => `${int(variant.feedback.count)} scores` },
];

/** Each variant's outcomes with their one-look intervals, on a scale each column shares. */
function VariantsTable({ results, experimentId }: { results: ExperimentResults; experimentId: string }) {
  const scales = COLUMNS.map((column) => scaleOf(results.variants.flatMap((variant) => [column.estimate(variant).low, column.estimate(variant).high, column.estimate(variant).value])));
  return html`<div class="table-wrap"><table class="compact results" data-testid="variant-results">
    <thead><tr><th>Variant</th><th class="num">Requests</th>${COLUMNS.map((column) => html`<th>${column.label}</th>`)}</tr></thead>
    <tbody>${results.variants.map(
      (variant) => html`<tr data-variant=${variant.variant}>
        <th scope="row">${variant.variant}${variant.control ? html` <span class="pill neutral">control</span>` : null}</th>
        <td class="num"><a href=${href("/logs", { experiment_id: experimentId, experiment_variant: variant.variant })} title="Its requests">${int(variant.requests)}</a></td>
        ${COLUMNS.map((column, index) => {
          const estimate = column.estimate(variant);
          return html`<td data-column=${column.label}>
            <${Interval} estimate=${estimate.value} low=${estimate.low} high=${estimate.high} format=${column.format} ...${scales[index]} />
            ${column.note ? html`<div class="muted small-text">${column.note(variant)}</div>` : null}
          </td>`;
        })}
      </tr>`,
    )}</tbody>
  </table></div>`;
}

/** The worst change a guard tolerates, as the metric's change reads (a ratio for latency, a fall for feedback). */
function guardBound(comparison: MetricComparison, tolerance: number): string {
  const bound = comparison.kind === "ratio" ? 1 + tolerance : comparison.metric === "feedback_score" ? -tolerance : tolerance;
  return changeFormat(comparison.metric)(bound);
}

const pValue = (value: number | null): string => (value === null ? "—" : value < 0.0001 ? "< 0.0001" : value.toFixed(4));

/** One variant against the control: each metric's change with its always-valid interval, p-value, verdict and guard. */
function ComparisonTable({ variant, metrics, control }: { variant: string; metrics: MetricComparison[]; control: string }) {
  return html`<section class="comparison" aria-label=${`${variant} against ${control}`} data-testid=${`comparison-${variant}`}>
    <h3>${variant} <span class="muted">against ${control}</span></h3>
    <div class="table-wrap"><table class="compact">
      <thead><tr><th>Metric</th><th>Change (always-valid interval)</th><th class="num">p-value</th><th>Verdict</th><th>Guard</th></tr></thead>
      <tbody>${metrics.map((comparison) => {
        const reference = comparison.kind === "ratio" ? 1 : 0;
        return html`<tr data-metric=${comparison.metric}>
          <th scope="row">${METRIC_LABEL[comparison.metric]}</th>
          <td><${Interval} estimate=${comparison.value} low=${comparison.low} high=${comparison.high} format=${changeFormat(comparison.metric)} reference=${reference} ...${scaleOf([comparison.low, comparison.high, comparison.value], reference)} /></td>
          <td class="num">${pValue(comparison.p_value)}</td>
          <td><span class=${`pill ${VERDICT_CLASS[comparison.verdict]}`}>${comparison.verdict.replace("_", " ")}</span></td>
          <td>${comparison.guard
            ? html`<span class="nowrap">${guardBound(comparison, comparison.guard.tolerance)} <span class=${`pill ${comparison.guard.crossed ? "bad" : "neutral"}`}>${comparison.guard.crossed ? "crossed" : "within"}</span></span>`
            : html`<span class="muted">none</span>`}</td>
        </tr>`;
      })}</tbody>
    </table></div>
  </section>`;
}

/** An experiment's results: the variants, then each against the control, and how they were computed. */
export function ExperimentResultsPanel({ results, experimentId, actions }: { results: ExperimentResults; experimentId: string; actions?: unknown }) {
  return html`<${Panel} title="Results" id="results-title" actions=${actions}>
    <${VariantsTable} results=${results} experimentId=${experimentId} />
    <p class="muted small-text">Each figure with its ${Math.round((1 - results.alpha) * 100)} % confidence interval for this one look; the bars of a column share its scale.</p>
    ${results.comparisons.map((comparison) => html`<${ComparisonTable} variant=${comparison.variant} metrics=${comparison.metrics} control=${results.control} />`)}
    <p class="muted small-text" data-testid="method">
      ${results.method} α = ${results.alpha}: however often the results are read, the chance of a false verdict stays under α (<a href="/docs">API reference</a>, docs/experiments.md). Computed ${shortTime(results.computed_at)}.
    </p>
  </${Panel}>`;
}
