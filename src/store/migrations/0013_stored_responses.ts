import type { Kysely } from "kysely";

/**
 * `stored_responses`: the Responses answers of providers reached through their chat translation
 * (they keep none themselves), so `GET /v1/responses/{id}` and `previous_response_id` work for
 * them. `conversation` holds the input and output items a follow-up continues from. Frozen.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("stored_responses")
    .addColumn("workspace_id", "text", (col) => col.notNull())
    .addColumn("id", "text", (col) => col.notNull())
    .addColumn("response", "text", (col) => col.notNull())
    .addColumn("conversation", "text", (col) => col.notNull())
    .addColumn("created_at", "text", (col) => col.notNull())
    .addPrimaryKeyConstraint("stored_responses_pk", ["workspace_id", "id"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("stored_responses").execute();
}
