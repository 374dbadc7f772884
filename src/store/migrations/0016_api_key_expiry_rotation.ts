import type { Kysely } from "kysely";

/**
 * Gateway-key expiry and rotation: `expires_at` (null: never), and the secret a rotation
 * replaced, `previous_key_hash`, which keeps working until `previous_key_expires_at`. The hash
 * is looked up on every uncached authentication, so it is indexed like `key_hash`. Frozen.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("api_keys").addColumn("expires_at", "text").execute();
  await db.schema.alterTable("api_keys").addColumn("previous_key_hash", "text").execute();
  await db.schema.alterTable("api_keys").addColumn("previous_key_expires_at", "text").execute();
  await db.schema.createIndex("api_keys_previous_key_hash").on("api_keys").column("previous_key_hash").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("api_keys_previous_key_hash").execute();
  await db.schema.alterTable("api_keys").dropColumn("previous_key_expires_at").execute();
  await db.schema.alterTable("api_keys").dropColumn("previous_key_hash").execute();
  await db.schema.alterTable("api_keys").dropColumn("expires_at").execute();
}
