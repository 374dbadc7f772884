import { sql, type Kysely } from "kysely";

/**
 * `prompt_labels`: named pointers at a prompt's versions (`production`, `staging`, any name), one
 * version per (prompt, label). Every prompt's published version becomes its `production` label,
 * which the store keeps equal to `prompts.default_version` from here on. Frozen.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("prompt_labels")
    .addColumn("prompt_id", "text", (col) => col.notNull().references("prompts.id"))
    .addColumn("label", "text", (col) => col.notNull())
    .addColumn("version_number", "integer", (col) => col.notNull())
    .addColumn("workspace_id", "text", (col) => col.notNull())
    .addColumn("updated_by", "text")
    .addColumn("updated_at", "text", (col) => col.notNull())
    .addPrimaryKeyConstraint("prompt_labels_pk", ["prompt_id", "label"])
    .execute();
  await sql`
    INSERT INTO prompt_labels (prompt_id, label, version_number, workspace_id, updated_by, updated_at)
    SELECT id, 'production', default_version, workspace_id, updated_by, updated_at FROM prompts`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("prompt_labels").execute();
}
