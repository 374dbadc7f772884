import { PostgresAdapter, type Kysely } from "kysely";
import type { Database } from "./schema.ts";

/**
 * The smallest log id made at or after `ms`: ids are UUIDv7, whose first 12 hex digits are
 * the millisecond, so every id made before `ms` sorts below this prefix. Lets the primary key
 * (and PostgreSQL's day partitions, which are ranges of ids) stand for a time range.
 */
export function idBound(ms: number): string {
  const time = Math.max(0, Math.trunc(ms)).toString(16).padStart(12, "0");
  return `${time.slice(0, 8)}-${time.slice(8)}`;
}

/**
 * How far a log's id may be from its `created_at`. Both are taken from one clock reading as the
 * request starts (from consecutive readings before), so they are the same millisecond; a minute
 * leaves room for a clock step between two consecutive readings. A time range read through the
 * ids reads this much more at each end.
 */
export const ID_MARGIN_MS = 60_000;

/**
 * Bounds on log ids implied by a time range (`from` inclusive, `to` exclusive, ISO instants), with
 * the margin above: added to a query's `created_at` range on PostgreSQL, they let it read only the
 * day partitions (ranges of ids) the range falls in.
 */
export function idRangeOf(from: string | undefined, to: string | undefined): { from?: string; to?: string } {
  return {
    from: from === undefined ? undefined : idBound(Date.parse(from) - ID_MARGIN_MS),
    to: to === undefined ? undefined : idBound(Date.parse(to) + ID_MARGIN_MS),
  };
}

/** The millisecond a UUIDv7 log id was made (its first 12 hex digits); NaN for an id of another form. */
export function idTimeMs(id: string): number {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-7/i.test(id) ? parseInt(id.slice(0, 8) + id.slice(9, 13), 16) : Number.NaN;
}

/** True where the log tables are partitioned by id (PostgreSQL), so an id range narrows what a query reads. */
export function partitionedById(db: Kysely<Database>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
