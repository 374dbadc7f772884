import { html } from "../lib/html.ts";
import { dash } from "../lib/format.ts";

/**
 * An estimate with its interval: the figures as text, and a bar placing the interval on a
 * shared scale (`min`..`max`) so the rows of a table compare at a glance. With `reference`, the
 * scale marks that value: no change (0 for a difference, 1 for a ratio), which an interval that
 * crosses it has not yet ruled out.
 */
export function Interval({ estimate, low, high, format, min, max, reference }: {
  estimate: number | null | undefined;
  low: number | null | undefined;
  high: number | null | undefined;
  format: (value: number) => string;
  min: number;
  max: number;
  reference?: number;
}) {
  if (estimate === null || estimate === undefined) return html`<span class="muted">${dash}</span>`;
  const bounded = low !== null && low !== undefined && high !== null && high !== undefined;
  const span = max - min || 1;
  const at = (value: number) => `${Math.min(100, Math.max(0, ((value - min) / span) * 100))}%`;
  const width = (from: number, to: number) => `${Math.max(0.8, Math.min(100, ((Math.min(to, max) - Math.max(from, min)) / span) * 100))}%`;
  return html`<span class="interval" title=${bounded ? `estimate ${format(estimate)}, interval ${format(low)} to ${format(high)}` : undefined}>
    <span class="interval-text">${format(estimate)}${bounded ? html` <span class="muted">[${format(low)}, ${format(high)}]</span>` : null}</span>
    <span class="interval-bar" aria-hidden="true">
      ${reference !== undefined && min < reference && max > reference ? html`<span class="interval-zero" style=${{ left: at(reference) }}></span>` : null}
      ${bounded ? html`<span class="interval-range" style=${{ left: at(low), width: width(low, high) }}></span>` : null}
      <span class="interval-point" style=${{ left: at(estimate) }}></span>
    </span>
  </span>`;
}

/** The scale a column of intervals shares: from the lowest bound to the highest, the reference included. */
export function scaleOf(values: (number | null | undefined)[], reference?: number): { min: number; max: number } {
  const finite = values.filter((value): value is number => typeof value === "number" && Number.isFinite(value));
  if (reference !== undefined) finite.push(reference);
  if (finite.length === 0) return { min: 0, max: 1 };
  const min = Math.min(...finite);
  const max = Math.max(...finite);
  const pad = (max - min) * 0.05 || Math.abs(max) * 0.05 || 1;
  return { min: min - pad, max: max + pad };
}
