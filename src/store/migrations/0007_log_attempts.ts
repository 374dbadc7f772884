import type { Kysely } from "kysely";

/**
 * Every upstream try of a request, as a JSON array text. Rows from before read as no tries.
 * Frozen: add `0008_…` for changes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("logs").addColumn("attempts", "text", (col) => col.notNull().defaultTo("[]")).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("logs").dropColumn("attempts").execute();
}
