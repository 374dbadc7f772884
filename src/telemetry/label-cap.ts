/**
 * Bounds the distinct values of one metric label. Values come from requests (model names), and
 * every distinct value is a time series Prometheus keeps: past `max` distinct values, new ones
 * fold into `other`. Values seen before the cap filled keep their own series.
 */
export class LabelCap {
  private readonly seen = new Set<string>();

  constructor(private readonly max = 200, private readonly maxLength = 128) {}

  /** The label value to use for `value`; `none` when there is none. Never throws. */
  value(value: string | null | undefined): string {
    if (value === null || value === undefined || value === "") return "none";
    const cut = value.length > this.maxLength ? value.slice(0, this.maxLength) : value;
    if (this.seen.has(cut)) return cut;
    if (this.seen.size >= this.max) return "other";
    this.seen.add(cut);
    return cut;
  }
}
