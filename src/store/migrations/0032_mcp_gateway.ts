import type { Kysely } from "kysely";

/**
 * The MCP gateway: a gateway key's MCP access rule (`mcp_access`, JSON text, null: every server
 * of its workspace), and per stored server a price per tool call (`call_price_usd`, with
 * per-tool prices in `tool_prices`, JSON text) and the guardrails run on tool arguments and
 * results (`input_guardrails`, `output_guardrails`, JSON arrays of slugs). Frozen.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("api_keys").addColumn("mcp_access", "text").execute();
  await db.schema.alterTable("mcp_servers").addColumn("call_price_usd", "real").execute();
  await db.schema.alterTable("mcp_servers").addColumn("tool_prices", "text").execute();
  await db.schema.alterTable("mcp_servers").addColumn("input_guardrails", "text").execute();
  await db.schema.alterTable("mcp_servers").addColumn("output_guardrails", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("mcp_servers").dropColumn("output_guardrails").execute();
  await db.schema.alterTable("mcp_servers").dropColumn("input_guardrails").execute();
  await db.schema.alterTable("mcp_servers").dropColumn("tool_prices").execute();
  await db.schema.alterTable("mcp_servers").dropColumn("call_price_usd").execute();
  await db.schema.alterTable("api_keys").dropColumn("mcp_access").execute();
}
