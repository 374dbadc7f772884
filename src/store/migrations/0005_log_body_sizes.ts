import type { Kysely } from "kysely";

/**
 * Logged bodies are cut to a limit: each body gets a flag that it was cut and its full size in
 * bytes (`double precision`, so an answer past 2 GiB still fits). Rows from before read as not
 * cut, size unknown. Frozen: add `0006_…` for changes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("logs").addColumn("request_body_truncated", "integer", (col) => col.notNull().defaultTo(0)).execute();
  await db.schema.alterTable("logs").addColumn("request_body_bytes", "double precision").execute();
  await db.schema.alterTable("logs").addColumn("response_body_truncated", "integer", (col) => col.notNull().defaultTo(0)).execute();
  await db.schema.alterTable("logs").addColumn("response_body_bytes", "double precision").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ["response_body_bytes", "response_body_truncated", "request_body_bytes", "request_body_truncated"]) {
    await db.schema.alterTable("logs").dropColumn(column).execute();
  }
}
