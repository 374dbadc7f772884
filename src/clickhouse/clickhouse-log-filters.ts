import { idRangeOf } from "../store/log-id-bound.ts";
import { RANGES, STATUS_RANGES, type LogFilterSet } from "../store/log-filters.ts";
import { num, str } from "./clickhouse-sql.ts";

/** A config named by slug or id, as the main store resolves it: the id of the workspace's config with that slug, else the value itself. */
export type ConfigIdResolver = (workspaceId: string, config: string) => Promise<string>;

/**
 * The log filters as a ClickHouse `WHERE` condition over `logs`: the same set of records the
 * main store's `matchesLogFilters` keeps. A null never equals a value and never lies in a range,
 * as in SQL. A trace is its `trace_id` (the main store's two arms are an index device). Throws a
 * `RangeError` when `from`/`to` is not an ISO 8601 instant.
 */
export async function logFiltersSql(filters: LogFilterSet, resolveConfig: ConfigIdResolver): Promise<string> {
  const conditions = [`workspace_id = ${str(filters.workspaceId)}`];
  const equal = (column: string, value: string | undefined) => {
    if (value !== undefined) conditions.push(`${column} = ${str(value)}`);
  };
  equal("end_user", filters.user);
  equal("model", filters.model);
  equal("provider", filters.provider);
  equal("prompt_id", filters.promptId);
  equal("virtual_key_id", filters.virtualKeyId);
  equal("experiment_id", filters.experimentId);
  equal("experiment_variant", filters.experimentVariant);
  equal("trace_id", filters.traceId);
  equal("cache_status", filters.cacheStatus);
  if (filters.status !== undefined) conditions.push(`status = ${num(filters.status)}`);
  if (filters.success !== undefined) conditions.push(`success = ${filters.success ? 1 : 0}`);
  if (filters.from !== undefined) conditions.push(`created_ms >= ${num(instantMs(filters.from, "from"))}`);
  if (filters.to !== undefined) conditions.push(`created_ms < ${num(instantMs(filters.to, "to"))}`);
  // The same range on ids, the primary key's second column: a range then reads its own rows of the workspace, not its days'.
  const ids = idRangeOf(filters.from, filters.to);
  if (ids.from !== undefined) conditions.push(`id >= ${str(ids.from)}`);
  if (ids.to !== undefined) conditions.push(`id < ${str(ids.to)}`);
  if (filters.statusClass !== undefined) {
    const [low, high] = STATUS_RANGES[filters.statusClass];
    conditions.push(`status >= ${low}`, `status <= ${high}`);
  }
  for (const { column, min, max } of RANGES) {
    const low = filters[min];
    const high = filters[max];
    if (low !== undefined) conditions.push(`${column} >= ${num(low)}`);
    if (high !== undefined) conditions.push(`${column} <= ${num(high)}`);
  }
  if (filters.config !== undefined) conditions.push(`config_id = ${str(await resolveConfig(filters.workspaceId, filters.config))}`);
  for (const [key, value] of Object.entries(filters.metadata ?? {})) {
    conditions.push(`arrayExists((meta_key, meta_value) -> meta_key = ${str(key)} AND meta_value = ${str(value)}, meta.key, meta.value)`);
  }
  return conditions.map((condition) => `(${condition})`).join(" AND ");
}

function instantMs(value: string, name: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new RangeError(`log filter ${name} is not an ISO 8601 instant: ${value}`);
  return ms;
}

/** The value of metadata key `key` of a row, null when the row has no such key. */
export function metadataValueSql(key: string): string {
  return `if(has(meta.key, ${str(key)}), meta.value[indexOf(meta.key, ${str(key)})], NULL)`;
}
