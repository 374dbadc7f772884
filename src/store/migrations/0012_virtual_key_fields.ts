import type { Kysely } from "kysely";

/**
 * A virtual key's provider credential fields beyond the key (an AWS region and key pair, an
 * Azure deployment): JSON by field name, secret values as `{"$sealed": …}`; null for none.
 * Frozen: add `0013_…` for changes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("virtual_keys").addColumn("credential_fields", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("virtual_keys").dropColumn("credential_fields").execute();
}
