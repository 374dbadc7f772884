import type { Kysely } from "kysely";

/** `logs.web_searches`: the searches a provider ran and bills apart from tokens. On PostgreSQL it reaches every day partition. Frozen. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("logs").addColumn("web_searches", "integer", (col) => col.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("logs").dropColumn("web_searches").execute();
}
