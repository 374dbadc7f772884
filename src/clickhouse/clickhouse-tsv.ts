/**
 * ClickHouse's TabSeparated text, the cheapest insert format to write and to parse on every
 * release (18.16 parses JSONEachRow field by field, by name; TabSeparated by position).
 */

/** A string field: backslash, tab, newline and carriage return escaped. */
export function tsvString(value: string): string {
  return /[\\\t\n\r]/.test(value) ? value.replace(/[\\\t\n\r]/g, escapeChar) : value;
}

/** An `Array(String)` field: `['a','b']`, each element quoted and escaped. */
export function tsvStringArray(values: readonly string[]): string {
  let text = "[";
  for (let i = 0; i < values.length; i++) text += `${i === 0 ? "" : ","}'${/[\\\t\n\r']/.test(values[i]!) ? values[i]!.replace(/[\\\t\n\r']/g, escapeChar) : values[i]}'`;
  return `${text}]`;
}

/** Null, as TabSeparated writes it. */
export const TSV_NULL = "\\N";

function escapeChar(char: string): string {
  return char === "\t" ? "\\t" : char === "\n" ? "\\n" : char === "\r" ? "\\r" : `\\${char}`;
}
