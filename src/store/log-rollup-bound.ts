import { sql, type Kysely } from "kysely";
import { isMetadataDimension, ROLLUP_MAX_COLUMNS, ROLLUP_MIN_COLUMNS, ROLLUP_SUM_COLUMNS, type LogRollupsTable } from "./log-rollup-rows.ts";
import type { Database } from "./schema.ts";

/**
 * How many values of a declared metadata key one rollup period (an hour, a day) keeps. The
 * records of further values are summed into the period's overflow row (`OVERFLOW_VALUE`), and
 * analytics over a range holding one read the raw rows instead (exact, at raw rows' cost).
 */
export const MAX_VALUES_PER_PERIOD = 1_000;
/** The value of an overflow row: neither `''` (null) nor `=…` (a value), so never a group. */
export const OVERFLOW_VALUE = "!";

const groupOf = (row: Pick<LogRollupsTable, "workspace_id" | "dim" | "hour">) => `${row.workspace_id}\u0000${row.dim}\u0000${row.hour}`;

/**
 * `rows` with the values of each declared key's period past `MAX_VALUES_PER_PERIOD` (counting
 * the values already stored for it) merged into the period's overflow row. `stored: false`:
 * the periods hold nothing yet (the background build of an hour), so nothing is read.
 */
export async function boundMetadataRows(db: Kysely<Database>, rows: LogRollupsTable[], stored = true): Promise<LogRollupsTable[]> {
  if (!rows.some((row) => isMetadataDimension(row.dim))) return rows;
  return boundWith(stored ? await storedValues(db, rows) : new Map(), rows);
}

/**
 * `boundMetadataRows` with the stored values read beforehand (`storedValues`), for a writer whose
 * transaction cannot wait on a query. `known` is updated with the values kept.
 */
export function boundWith(known: Map<string, Set<string>>, rows: LogRollupsTable[]): LogRollupsTable[] {
  const metadataRows = rows.filter((row) => isMetadataDimension(row.dim));
  if (metadataRows.length === 0) return rows;
  const kept: LogRollupsTable[] = rows.filter((row) => !isMetadataDimension(row.dim));
  const overflow = new Map<string, LogRollupsTable>();
  for (const row of metadataRows) {
    const group = groupOf(row);
    let values = known.get(group);
    if (!values) known.set(group, (values = new Set()));
    if (row.value !== OVERFLOW_VALUE && (values.has(row.value) || values.size < MAX_VALUES_PER_PERIOD)) {
      values.add(row.value);
      kept.push(row);
      continue;
    }
    const id = `${group}\u0000${row.success}`;
    const into = overflow.get(id);
    if (into) mergeRollupRow(into, row);
    else overflow.set(id, { ...row, value: OVERFLOW_VALUE });
  }
  return [...kept, ...overflow.values()];
}

/** The values stored per (workspace, dimension, period) of `rows`, overflow rows aside. */
export async function storedValues(db: Kysely<Database>, all: readonly LogRollupsTable[]): Promise<Map<string, Set<string>>> {
  const rows = all.filter((row) => isMetadataDimension(row.dim));
  if (rows.length === 0) return new Map();
  const workspaces = [...new Set(rows.map((row) => row.workspace_id))];
  const dims = [...new Set(rows.map((row) => row.dim))];
  const hours = [...new Set(rows.map((row) => row.hour))];
  const wanted = new Set(rows.map(groupOf));
  const stored = await db
    .selectFrom("log_rollups")
    .select(["workspace_id", "dim", "hour", "value"])
    .distinct()
    .where("workspace_id", "in", workspaces)
    .where("dim", "in", dims)
    .where("hour", "in", hours)
    .where("value", "<>", OVERFLOW_VALUE)
    .execute();
  const values = new Map<string, Set<string>>();
  for (const row of stored) {
    const group = groupOf(row);
    if (!wanted.has(group)) continue;
    let set = values.get(group);
    if (!set) values.set(group, (set = new Set()));
    set.add(row.value);
  }
  return values;
}

const MINS = new Set<string>(ROLLUP_MIN_COLUMNS);

/** Adds `row`'s sums into `into` and widens its extremes (a null extreme is no value). */
function mergeRollupRow(into: LogRollupsTable, row: LogRollupsTable): void {
  const target = into as unknown as Record<string, number | null>;
  const source = row as unknown as Record<string, number | null>;
  for (const column of ROLLUP_SUM_COLUMNS) target[column] = (target[column] ?? 0) + (source[column] ?? 0);
  for (const column of [...ROLLUP_MIN_COLUMNS, ...ROLLUP_MAX_COLUMNS]) {
    const a = target[column] ?? null;
    const b = source[column] ?? null;
    target[column] = a === null ? b : b === null ? a : MINS.has(column) ? Math.min(a, b) : Math.max(a, b);
  }
}

/** True when a rollup row of `dims` in `[from, to)` of the workspace is an overflow row. */
export async function overflowsIn(db: Kysely<Database>, workspaceId: string, dims: ReadonlyArray<LogRollupsTable["dim"]>, from: string, to: string): Promise<boolean> {
  const row = await db
    .selectFrom("log_rollups")
    .select(sql<number>`1`.as("one"))
    .where("workspace_id", "=", workspaceId)
    .where("dim", "in", [...dims])
    .where("value", "=", OVERFLOW_VALUE)
    .where("hour", ">=", from)
    .where("hour", "<", to)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
