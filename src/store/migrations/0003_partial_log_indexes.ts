import { sql, type Kysely } from "kysely";

/**
 * The optional `logs` filter columns (end user, prompt, virtual key) are indexed only where
 * set: most requests carry none of them, and each index a row skips is one fewer B-tree
 * write per logged request. `end_user = ?` implies `end_user IS NOT NULL`, so SQLite and
 * PostgreSQL still use these indexes for the filters. Frozen: add `0004_…` for changes.
 */
const PARTIAL_INDEXES = [
  { name: "logs_workspace_user_idx", column: "end_user" },
  { name: "logs_workspace_prompt_idx", column: "prompt_id" },
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const { name, column } of PARTIAL_INDEXES) {
    await db.schema.dropIndex(name).execute();
    await db.schema.createIndex(name).on("logs").columns(["workspace_id", column]).where(sql.ref(column), "is not", null).execute();
  }
  await db.schema
    .createIndex("logs_workspace_virtual_key_idx")
    .on("logs")
    .columns(["workspace_id", "virtual_key_id"])
    .where(sql.ref("virtual_key_id"), "is not", null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("logs_workspace_virtual_key_idx").execute();
  for (const { name, column } of PARTIAL_INDEXES) {
    await db.schema.dropIndex(name).execute();
    await db.schema.createIndex(name).on("logs").columns(["workspace_id", column]).execute();
  }
}
