/**
 * SQL text for ClickHouse. Values are written into the statement as literals: ClickHouse before
 * 19.11 has no query parameters, and every value passes through `literal`, which escapes it.
 */

/** A string literal: backslash and quote escaped, as ClickHouse reads `'…'`. */
export function str(value: string): string {
  return `'${value.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

/** A number literal; throws on NaN or infinity (a caller's bug, never data). */
export function num(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  return String(value);
}

/** `(a, b, c)` of string literals, for `IN`. */
export function strList(values: readonly string[]): string {
  return `(${values.map(str).join(", ")})`;
}
