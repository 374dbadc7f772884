import type { Expression, ExpressionBuilder, SqlBool } from "kysely";
import type { LogFilters } from "../logging/log-record.ts";
import type { Database } from "./schema.ts";

/** The filters of `GET /v1/logs` that select records; paging (`before`, `limit`) is the listing's own. */
export type LogSelection = Omit<LogFilters, "before" | "limit">;

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

/**
 * The one condition for "records of the workspace matching these filters", shared by the logs
 * listing and the analytics' raw path so both always mean the same thing. Throws a RangeError
 * when `from`/`to` are not ISO 8601 instants.
 */
export function matchesLogFilters(eb: ExpressionBuilder<Database, "logs">, filters: LogSelection): Expression<SqlBool> {
  const { workspaceId } = filters;
  const conditions: Expression<SqlBool>[] = [eb("logs.workspace_id", "=", workspaceId)];
  if (filters.user !== undefined) conditions.push(eb("end_user", "=", filters.user));
  if (filters.model !== undefined) conditions.push(eb("model", "=", filters.model));
  if (filters.provider !== undefined) conditions.push(eb("provider", "=", filters.provider));
  if (filters.status !== undefined) conditions.push(eb("status", "=", filters.status));
  if (filters.success !== undefined) conditions.push(eb("success", "=", filters.success ? 1 : 0));
  if (filters.traceId !== undefined) conditions.push(inTrace(eb, filters.traceId));
  if (filters.promptId !== undefined) conditions.push(eb("prompt_id", "=", filters.promptId));
  if (filters.virtualKeyId !== undefined) conditions.push(eb("virtual_key_id", "=", filters.virtualKeyId));
  if (filters.from !== undefined) conditions.push(eb("created_at", ">=", isoInstant(filters.from, "from")));
  if (filters.to !== undefined) conditions.push(eb("created_at", "<", isoInstant(filters.to, "to")));
  for (const [key, value] of Object.entries(filters.metadata ?? {})) {
    conditions.push(
      eb.exists(
        eb
          .selectFrom("log_metadata")
          .select("log_metadata.log_id")
          .whereRef("log_metadata.log_id", "=", "logs.id")
          .where("log_metadata.workspace_id", "=", workspaceId)
          .where("log_metadata.key", "=", key)
          .where("log_metadata.value", "=", value),
      ),
    );
  }
  return eb.and(conditions);
}

/**
 * Any ISO 8601 instant as the stored form (`…T…:…:….sssZ`), so text comparison is time
 * comparison whatever offset or precision the caller wrote.
 */
export function isoInstant(value: string, name: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new RangeError(`log filter ${name} is not an ISO 8601 instant: ${value}`);
  return new Date(ms).toISOString();
}
