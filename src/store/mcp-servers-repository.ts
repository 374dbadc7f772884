import type { Kysely, Selectable } from "kysely";
import { isSealedSecret, type SealedSecret } from "../crypto/sealed-secret.ts";
import type { McpApprovalPolicy, McpServerRecord } from "../records/control-plane.ts";
import type { McpServerChange, McpServersRepository, NewMcpServer } from "./control-plane-repositories.ts";
import type { Database, McpServersTable } from "./schema.ts";
import { ownershipColumns, ownershipOf } from "./ownership-columns.ts";

type McpServerRow = Selectable<McpServersTable>;

/** The repository over `mcp_servers`, addressed by `(workspace_id, label)`. */
export function createMcpServersRepository(db: Kysely<Database>): McpServersRepository {
  const byLabel = (workspaceId: string, label: string) => db.selectFrom("mcp_servers").selectAll().where("workspace_id", "=", workspaceId).where("label", "=", label);
  return {
    async create(server) {
      // Checked first: a failed insert would end a PostgreSQL transaction (the audited write's).
      if (await byLabel(server.workspaceId, server.label).executeTakeFirst()) return undefined;
      const row = toRow(server);
      await db.insertInto("mcp_servers").values(row).execute();
      return fromRow(row);
    },
    async list(workspaceId) {
      const rows = await db.selectFrom("mcp_servers").selectAll().where("workspace_id", "=", workspaceId).orderBy("created_at", "desc").orderBy("id", "desc").execute();
      return rows.map(fromRow);
    },
    async getByLabel(workspaceId, label) {
      const row = await byLabel(workspaceId, label).executeTakeFirst();
      return row && fromRow(row);
    },
    async update(workspaceId, label, change) {
      const row = await db
        .updateTable("mcp_servers")
        .set(changedColumns(change))
        .where("workspace_id", "=", workspaceId)
        .where("label", "=", label)
        .returningAll()
        .executeTakeFirst();
      return row && fromRow(row);
    },
    async delete(workspaceId, label) {
      const result = await db.deleteFrom("mcp_servers").where("workspace_id", "=", workspaceId).where("label", "=", label).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
    async listAll() {
      return (await db.selectFrom("mcp_servers").selectAll().execute()).map(fromRow);
    },
  };
}

function toRow(server: NewMcpServer): McpServerRow {
  return {
    id: server.id,
    ...ownershipColumns(server),
    label: server.label,
    url: server.url,
    description: server.description,
    authorization: server.authorization === null ? null : JSON.stringify(server.authorization),
    headers: JSON.stringify(server.headers),
    allowed_tools: server.allowedTools === null ? null : JSON.stringify(server.allowedTools),
    require_approval: JSON.stringify(server.requireApproval),
    call_price_usd: server.callPriceUsd,
    tool_prices: jsonOrNull(server.toolPrices),
    input_guardrails: jsonOrNull(server.inputGuardrails),
    output_guardrails: jsonOrNull(server.outputGuardrails),
    created_at: server.createdAt,
    updated_at: server.createdAt,
  };
}

function changedColumns(change: McpServerChange): Partial<McpServerRow> {
  return {
    updated_by: change.updatedBy,
    updated_at: change.at,
    ...(change.url !== undefined && { url: change.url }),
    ...(change.description !== undefined && { description: change.description }),
    ...(change.authorization !== undefined && { authorization: change.authorization === null ? null : JSON.stringify(change.authorization) }),
    ...(change.headers !== undefined && { headers: JSON.stringify(change.headers) }),
    ...(change.allowedTools !== undefined && { allowed_tools: change.allowedTools === null ? null : JSON.stringify(change.allowedTools) }),
    ...(change.requireApproval !== undefined && { require_approval: JSON.stringify(change.requireApproval) }),
    ...(change.callPriceUsd !== undefined && { call_price_usd: change.callPriceUsd }),
    ...(change.toolPrices !== undefined && { tool_prices: jsonOrNull(change.toolPrices) }),
    ...(change.inputGuardrails !== undefined && { input_guardrails: jsonOrNull(change.inputGuardrails) }),
    ...(change.outputGuardrails !== undefined && { output_guardrails: jsonOrNull(change.outputGuardrails) }),
  };
}

function jsonOrNull(value: unknown): string | null {
  return value === null ? null : JSON.stringify(value);
}

function fromRow(row: McpServerRow): McpServerRecord {
  const authorization: unknown = row.authorization === null ? null : JSON.parse(row.authorization);
  const headers = JSON.parse(row.headers) as Record<string, unknown>;
  return {
    id: row.id,
    ...ownershipOf(row),
    label: row.label,
    url: row.url,
    description: row.description,
    authorization: isSealedSecret(authorization) ? authorization : null,
    headers: Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, SealedSecret] => isSealedSecret(entry[1]))),
    allowedTools: row.allowed_tools === null ? null : (JSON.parse(row.allowed_tools) as string[]),
    requireApproval: JSON.parse(row.require_approval) as McpApprovalPolicy,
    callPriceUsd: row.call_price_usd,
    toolPrices: row.tool_prices === null ? null : (JSON.parse(row.tool_prices) as Record<string, number>),
    inputGuardrails: row.input_guardrails === null ? null : (JSON.parse(row.input_guardrails) as string[]),
    outputGuardrails: row.output_guardrails === null ? null : (JSON.parse(row.output_guardrails) as string[]),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
