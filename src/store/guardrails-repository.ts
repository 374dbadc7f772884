import type { Kysely, Selectable } from "kysely";
import type { GuardrailCheckSpec, GuardrailRecord } from "../records/control-plane.ts";
import type { GuardrailChange, GuardrailsRepository, NewGuardrail } from "./control-plane-repositories.ts";
import type { Database, GuardrailsTable } from "./schema.ts";
import { ownershipColumns, ownershipOf } from "./ownership-columns.ts";
import { sluggedTable } from "./slugged-table.ts";

type GuardrailRow = Selectable<GuardrailsTable>;

/** The repository over `guardrails`; checks and action are stored as JSON text. */
export function createGuardrailsRepository(db: Kysely<Database>): GuardrailsRepository {
  const rows = sluggedTable(db, "guardrails", fromRow);
  return {
    create: (guardrail) => rows.insert(toRow(guardrail)),
    list: rows.list,
    getBySlug: rows.getBySlug,
    update: (workspaceId, slug, change) => rows.update(workspaceId, slug, changedColumns(change)),
    delete: rows.delete,
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
  const action: { deny: boolean; redact?: boolean } = JSON.parse(row.action);
  return {
    id: row.id,
    ...ownershipOf(row),
    slug: row.slug,
    name: row.name,
    checks,
    action: { deny: action.deny === true, ...(action.redact === true && { redact: true }) },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
