/**
 * The smallest log id made at or after `ms`: ids are UUIDv7, whose first 12 hex digits are
 * the millisecond, so every id made before `ms` sorts below this prefix. Lets the primary key
 * (and PostgreSQL's day partitions, which are ranges of ids) stand for a time range.
 */
export function idBound(ms: number): string {
  const time = Math.max(0, ms).toString(16).padStart(12, "0");
  return `${time.slice(0, 8)}-${time.slice(8)}`;
}
