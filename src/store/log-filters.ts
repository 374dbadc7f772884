import { sql, type Expression, type ExpressionBuilder, type SqlBool } from "kysely";
import type { LogFilters, StatusClass } from "../records/log-record.ts";
import { idRangeOf } from "./log-id-bound.ts";
import { inMetadataPairs } from "./log-metadata-pairs.ts";
import type { Database } from "./schema.ts";

/** What narrows a set of logs: the filters without the listing's paging. */
export type LogFilterSet = Omit<LogFilters, "before" | "limit">;

/**
 * The logs of one trace, in two arms so each has an index: the partial trace index holds only
 * rows whose trace id is not their own log id (migration 0004); the primary key finds the
 * request the trace is named after.
 */
export function inTrace(eb: ExpressionBuilder<Database, "logs">, traceId: string) {
  return eb.or([
    eb.and([eb("trace_id", "=", traceId), eb("trace_id", "<>", eb.ref("id"))]),
    eb.and([eb("id", "=", traceId), eb("trace_id", "=", traceId)]),
  ]);
}

/** The status codes each status class covers, inclusive. */
export const STATUS_RANGES: Readonly<Record<StatusClass, readonly [number, number]>> = {
  "2xx": [200, 299],
  "4xx": [400, 499],
  "5xx": [500, 599],
};

/** Inclusive bounds on a numeric column: filter field names of the lower and upper bound. */
export const RANGES = [
  { column: "total_tokens", min: "minTotalTokens", max: "maxTotalTokens" },
  { column: "cost_usd", min: "minCostUsd", max: "maxCostUsd" },
  { column: "latency_ms", min: "minLatencyMs", max: "maxLatencyMs" },
  { column: "time_to_first_token_ms", min: "minTimeToFirstTokenMs", max: "maxTimeToFirstTokenMs" },
] as const satisfies ReadonlyArray<{ column: string; min: keyof LogFilterSet; max: keyof LogFilterSet }>;

export interface LogFilterOptions {
  /**
   * Also bound the ids by the time range (`idRangeOf`), for PostgreSQL's day partitions: a
   * correlated metadata lookup is otherwise planned against every partition.
   */
  idRange?: boolean;
  /** Metadata pairs are matched in the log row where it has them (PostgreSQL, `log-metadata-pairs.ts`). */
  pairsInRow?: boolean;
}

/**
 * The one translation of log filters into SQL, for `logs` rows of the filters' workspace:
 * listing, export and analytics all narrow through it, so they agree on what a filter keeps.
 * Use as `selectFrom("logs").where((eb) => matchesLogFilters(eb, filters))`. Throws a
 * `RangeError` when `from`/`to` is not an ISO 8601 instant (routes validate it first).
 */
export function matchesLogFilters(eb: ExpressionBuilder<Database, "logs">, filters: LogFilterSet, options: LogFilterOptions = {}): Expression<SqlBool> {
  const { workspaceId } = filters;
  const conditions: Expression<SqlBool>[] = [eb("logs.workspace_id", "=", workspaceId)];
  const ids = options.idRange ? idRangeOf(filters.from && isoInstant(filters.from, "from"), filters.to && isoInstant(filters.to, "to")) : {};
  if (ids.from !== undefined) conditions.push(eb("logs.id", ">=", ids.from));
  if (ids.to !== undefined) conditions.push(eb("logs.id", "<", ids.to));
  const equal = (column: "end_user" | "model" | "provider" | "prompt_id" | "virtual_key_id" | "experiment_id" | "experiment_variant", value: string | undefined) => {
    if (value !== undefined) conditions.push(eb(`logs.${column}`, "=", value));
  };
  equal("end_user", filters.user);
  equal("model", filters.model);
  equal("provider", filters.provider);
  equal("prompt_id", filters.promptId);
  equal("virtual_key_id", filters.virtualKeyId);
  equal("experiment_id", filters.experimentId);
  equal("experiment_variant", filters.experimentVariant);
  if (filters.status !== undefined) conditions.push(eb("logs.status", "=", filters.status));
  if (filters.success !== undefined) conditions.push(eb("logs.success", "=", filters.success ? 1 : 0));
  if (filters.traceId !== undefined) conditions.push(inTrace(eb, filters.traceId));
  if (filters.cacheStatus !== undefined) conditions.push(eb("logs.cache_status", "=", filters.cacheStatus));
  if (filters.from !== undefined) conditions.push(eb("logs.created_at", ">=", isoInstant(filters.from, "from")));
  if (filters.to !== undefined) conditions.push(eb("logs.created_at", "<", isoInstant(filters.to, "to")));
  if (filters.statusClass !== undefined) {
    const [low, high] = STATUS_RANGES[filters.statusClass];
    conditions.push(eb("logs.status", ">=", low), eb("logs.status", "<=", high));
  }
  for (const { column, min, max } of RANGES) {
    const low = filters[min];
    const high = filters[max];
    if (low !== undefined) conditions.push(eb(`logs.${column}`, ">=", low));
    if (high !== undefined) conditions.push(eb(`logs.${column}`, "<=", high));
  }
  if (filters.config !== undefined) conditions.push(eb("logs.config_id", "=", configIdOf(eb, workspaceId, filters.config)));
  const pairs = Object.entries(filters.metadata ?? {});
  const storedPairs = pairs.map(([key, value]) =>
    eb.exists(
      eb
        .selectFrom("log_metadata")
        .select("log_metadata.log_id")
        .whereRef("log_metadata.log_id", "=", "logs.id")
        .where("log_metadata.workspace_id", "=", workspaceId)
        .where("log_metadata.key", "=", key)
        .where("log_metadata.value", "=", value)
        .$if(ids.from !== undefined, (q) => q.where("log_metadata.log_id", ">=", ids.from!))
        .$if(ids.to !== undefined, (q) => q.where("log_metadata.log_id", "<", ids.to!)),
    ),
  );
  if (pairs.length > 0 && options.pairsInRow) {
    // Rows stored before migration 0029 have no pairs in the row, only in `log_metadata`.
    conditions.push(eb.or([inMetadataPairs(pairs), eb.and([sql<boolean>`logs.metadata_pairs IS NULL`, ...storedPairs])]));
  } else {
    conditions.push(...storedPairs);
  }
  return eb.and(conditions);
}

/**
 * A config named by slug or by id: the id of the workspace's config with that slug, else the
 * value itself as an id (slugs `pc-…` and UUIDs never look alike). The id form still finds the
 * logs of a config deleted since. One scalar subquery, so the partial config index serves it.
 */
function configIdOf(eb: ExpressionBuilder<Database, "logs">, workspaceId: string, config: string) {
  const bySlug = eb
    .selectFrom("configs")
    .select("configs.id")
    .where("configs.workspace_id", "=", workspaceId)
    .where("configs.slug", "=", config);
  return eb.fn.coalesce(bySlug, eb.val(config));
}

/**
 * Any ISO 8601 instant as the stored form (`…T…:…:….sssZ`), so text comparison is time
 * comparison whatever offset or precision the caller wrote.
 */
function isoInstant(value: string, name: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new RangeError(`log filter ${name} is not an ISO 8601 instant: ${value}`);
  return new Date(ms).toISOString();
}
