import type { Kysely } from "kysely";

/**
 * `mcp_servers`: remote MCP servers a Responses `mcp` tool names by label, one label per
 * workspace; the bearer token and header values are sealed JSON. And `logs.tool_run`: the steps
 * of a tool run the gateway drove for a request (rows from before read as none). Frozen.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("mcp_servers")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("organisation_id", "text", (col) => col.notNull())
    .addColumn("workspace_id", "text", (col) => col.notNull())
    .addColumn("owner_id", "text")
    .addColumn("updated_by", "text")
    .addColumn("label", "text", (col) => col.notNull())
    .addColumn("url", "text", (col) => col.notNull())
    .addColumn("description", "text")
    .addColumn("authorization", "text")
    .addColumn("headers", "text", (col) => col.notNull().defaultTo("{}"))
    .addColumn("allowed_tools", "text")
    .addColumn("require_approval", "text", (col) => col.notNull())
    .addColumn("created_at", "text", (col) => col.notNull())
    .addColumn("updated_at", "text", (col) => col.notNull())
    .addUniqueConstraint("mcp_servers_workspace_label_unique", ["workspace_id", "label"])
    .execute();
  await db.schema.alterTable("logs").addColumn("tool_run", "text", (col) => col.notNull().defaultTo("[]")).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("logs").dropColumn("tool_run").execute();
  await db.schema.dropTable("mcp_servers").execute();
}
