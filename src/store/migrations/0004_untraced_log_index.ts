import { sql, type Kysely } from "kysely";

/**
 * A request sent without a trace id is its own trace, named by its log id (`trace_id = id`).
 * The trace index leaves those rows out: most requests carry no trace id, and each row the
 * index skips is one fewer B-tree write per logged request. The trace filter finds them
 * through the primary key instead (`logs-repository.ts`). Frozen: add `0005_…` for changes.
 */
const TRACE_INDEX = "logs_workspace_trace_idx";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex(TRACE_INDEX).execute();
  await db.schema
    .createIndex(TRACE_INDEX)
    .on("logs")
    .columns(["workspace_id", "trace_id"])
    .where(sql.ref("trace_id"), "<>", sql.ref("id"))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex(TRACE_INDEX).execute();
  await db.schema.createIndex(TRACE_INDEX).on("logs").columns(["workspace_id", "trace_id"]).execute();
}
