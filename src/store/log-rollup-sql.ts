import { sql, type Kysely, type RawBuilder } from "kysely";
import { UPPER_BOUNDS } from "../analytics/latency-histogram.ts";
import {
  ROLLUP_COLUMNS,
  ROLLUP_KEY_COLUMNS,
  ROLLUP_MAX_COLUMNS,
  ROLLUP_MIN_COLUMNS,
  ROLLUP_SUM_COLUMNS,
  type LogRollupsTable,
} from "./log-rollup-rows.ts";
import type { Database } from "./schema.ts";

/** Rows per multi-row upsert: 145 parameters each, so 200 rows stay under SQLite's 32,766. */
const ROLLUP_ROWS_PER_UPSERT = 200;

/**
 * What an upsert does with a key already stored: sums add, extremes keep the smaller or larger
 * (a null extreme, no time to first token yet, yields to the other). Plain SQL both engines
 * read alike; `excluded` is the row that was to be inserted. Identifiers are constants.
 */
const MERGE_ASSIGNMENTS = [
  ...ROLLUP_SUM_COLUMNS.map((c) => `${c} = log_rollups.${c} + excluded.${c}`),
  ...ROLLUP_MIN_COLUMNS.map((c) => keep(c, "<=")),
  ...ROLLUP_MAX_COLUMNS.map((c) => keep(c, ">=")),
].join(", ");

function keep(column: string, comparison: "<=" | ">="): string {
  const stored = `log_rollups.${column}`;
  const incoming = `excluded.${column}`;
  return `${column} = CASE WHEN ${incoming} IS NULL OR (${stored} IS NOT NULL AND ${stored} ${comparison} ${incoming}) THEN ${stored} ELSE ${incoming} END`;
}

/** What makes an INSERT into `log_rollups` add to the stored row of its key. */
export const ROLLUP_CONFLICT_CLAUSE = `ON CONFLICT (${ROLLUP_KEY_COLUMNS.join(", ")}) DO UPDATE SET ${MERGE_ASSIGNMENTS}`;

/** The one-row upsert with `?` placeholders in `ROLLUP_COLUMNS` order, for a prepared statement. */
export const ROLLUP_UPSERT_SQL = `INSERT INTO log_rollups (${ROLLUP_COLUMNS.join(", ")}) VALUES (${ROLLUP_COLUMNS.map(() => "?").join(", ")}) ${ROLLUP_CONFLICT_CLAUSE}`;

const ZERO = sql.raw("0");

/** Adds rollup deltas to the stored rows, through Kysely (inside the caller's transaction). */
export async function upsertRollups(db: Kysely<Database>, rows: readonly LogRollupsTable[]): Promise<void> {
  for (let start = 0; start < rows.length; start += ROLLUP_ROWS_PER_UPSERT) {
    const chunk = rows.slice(start, start + ROLLUP_ROWS_PER_UPSERT);
    // Most histogram counts of a delta are 0: written as literals, they cost the driver nothing to bind.
    const values = chunk.map((row) => sql`(${sql.join(ROLLUP_COLUMNS.map((column) => (row[column] === 0 ? ZERO : row[column])))})`);
    await sql`INSERT INTO log_rollups (${sql.raw(ROLLUP_COLUMNS.join(", "))}) VALUES ${sql.join(values)} ${sql.raw(ROLLUP_CONFLICT_CLAUSE)}`.execute(db);
  }
}

/**
 * The histogram bucket of a column as SQL, by the same comparisons as `bucketOf`: a CASE that
 * halves the bounds at each level (6 comparisons a row, not 63). Null stays null.
 */
export function bucketSql(column: RawBuilder<unknown>): RawBuilder<number | null> {
  const build = (low: number, high: number): RawBuilder<number> => {
    if (low === high) return sql<number>`${sql.lit(low)}`;
    const mid = (low + high + 1) >> 1;
    return sql<number>`CASE WHEN ${column} < ${sql.raw(String(UPPER_BOUNDS[mid - 1]))} THEN ${build(low, mid - 1)} ELSE ${build(mid, high)} END`;
  };
  return sql<number | null>`CASE WHEN ${column} IS NULL THEN NULL ELSE ${build(0, UPPER_BOUNDS.length)} END`;
}
