import type { Kysely } from "kysely";

/** `cost_note`: why a logged request has no cost (an unpriced model, no usage reported). Frozen. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("logs").addColumn("cost_note", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("logs").dropColumn("cost_note").execute();
}
