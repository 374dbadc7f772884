import type { Kysely } from "kysely";

/** `api_keys.run_limits`: the breaker of every run made with the key (JSON text; null: none). Frozen. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("api_keys").addColumn("run_limits", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("api_keys").dropColumn("run_limits").execute();
}
