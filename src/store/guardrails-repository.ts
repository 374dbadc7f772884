import type { Kysely, Selectable } from "kysely";
import type { GuardrailCheckSpec, GuardrailRecord } from "../control-plane/records.ts";
import type { GuardrailChange, GuardrailsRepository, NewGuardrail } from "./control-plane-repositories.ts";
import type { Database, GuardrailsTable } from "./schema.ts";
import { ownershipColumns, ownershipOf } from "./ownership-columns.ts";

type GuardrailRow = Selectable<GuardrailsTable>;

/** The repository over `guardrails`; checks and action are stored as JSON text. */
export function createGuardrailsRepository(db: Kysely<Database>): GuardrailsRepository {
  return {
    async create(guardrail) {
      const row = toRow(guardrail);
      await db.insertInto("guardrails").values(row).execute();
      return fromRow(row);
    },

    async list(workspaceId) {
      const rows = await db
        .selectFrom("guardrails")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .execute();
      return rows.map(fromRow);
    },

    async getBySlug(workspaceId, slug) {
      const row = await db
        .selectFrom("guardrails")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .where("slug", "=", slug)
        .executeTakeFirst();
      return row && fromRow(row);
    },

    async update(workspaceId, slug, change) {
      const row = await db
        .updateTable("guardrails")
        .set(changedColumns(change))
        .where("workspace_id", "=", workspaceId)
        .where("slug", "=", slug)
        .returningAll()
        .executeTakeFirst();
      return row && fromRow(row);
    },

    async delete(workspaceId, slug) {
      const result = await db
        .deleteFrom("guardrails")
        .where("workspace_id", "=", workspaceId)
        .where("slug", "=", slug)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}

function toRow(guardrail: NewGuardrail): GuardrailRow {
  return {
    id: guardrail.id,
    ...ownershipColumns(guardrail),
    slug: guardrail.slug,
    name: guardrail.name,
    checks: JSON.stringify(guardrail.checks),
    action: JSON.stringify(guardrail.action),
    created_at: guardrail.createdAt,
    updated_at: guardrail.createdAt,
  };
}

/** The columns a change sets: absent fields keep their stored value. */
function changedColumns(change: GuardrailChange): Partial<GuardrailRow> {
  return {
    updated_by: change.updatedBy,
    updated_at: change.at,
    ...(change.name !== undefined && { name: change.name }),
    ...(change.checks !== undefined && { checks: JSON.stringify(change.checks) }),
    ...(change.action !== undefined && { action: JSON.stringify(change.action) }),
  };
}

function fromRow(row: GuardrailRow): GuardrailRecord {
  const checks: GuardrailCheckSpec[] = JSON.parse(row.checks);
  const action: { deny: boolean } = JSON.parse(row.action);
  return {
    id: row.id,
    ...ownershipOf(row),
    slug: row.slug,
    name: row.name,
    checks,
    action: { deny: action.deny === true },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
