import type { Kysely, Selectable } from "kysely";
import type { StoredCredentialFields, VirtualKeyRecord } from "../records/control-plane.ts";
import { budgetColumns, budgetOf, rateLimitColumns, rateLimitOf } from "./key-limit-columns.ts";
import type { NewVirtualKey, VirtualKeyChange, VirtualKeysRepository } from "./control-plane-repositories.ts";
import type { Database, VirtualKeysTable } from "./schema.ts";
import { ownershipColumns, ownershipOf } from "./ownership-columns.ts";
import { sluggedTable } from "./slugged-table.ts";

type VirtualKeyRow = Selectable<VirtualKeysTable>;

/** The repository over `virtual_keys`. */
export function createVirtualKeysRepository(db: Kysely<Database>): VirtualKeysRepository {
  const rows = sluggedTable(db, "virtual_keys", fromRow);
  return {
    create: (key) => rows.insert(toRow(key)),
    list: rows.list,
    getBySlug: rows.getBySlug,
    async getById(workspaceId, id) {
      const row = await db.selectFrom("virtual_keys").selectAll().where("workspace_id", "=", workspaceId).where("id", "=", id).executeTakeFirst();
      return row && fromRow(row);
    },
    update: (workspaceId, slug, change) => rows.update(workspaceId, slug, changedColumns(change)),
    delete: rows.delete,
  };
}

function toRow(key: NewVirtualKey): VirtualKeyRow {
  return {
    id: key.id,
    ...ownershipColumns(key),
    slug: key.slug,
    name: key.name,
    provider: key.provider,
    encrypted_key: key.encryptedKey,
    key_hint: key.keyHint,
    upstream_organization: key.upstreamOrganization,
    upstream_project: key.upstreamProject,
    custom_host: key.customHost,
    credential_fields: fieldsColumn(key.fields),
    ...budgetColumns(key.budget),
    ...rateLimitColumns(key.rateLimit),
    created_at: key.createdAt,
    updated_at: key.createdAt,
  };
}

/** The columns a change sets: absent fields are left out, so they keep their stored value. */
function changedColumns(change: VirtualKeyChange): Partial<VirtualKeyRow> {
  return {
    updated_by: change.updatedBy,
    updated_at: change.at,
    ...(change.name !== undefined && { name: change.name }),
    ...(change.encryptedKey !== undefined && { encrypted_key: change.encryptedKey }),
    ...(change.keyHint !== undefined && { key_hint: change.keyHint }),
    ...(change.upstreamOrganization !== undefined && { upstream_organization: change.upstreamOrganization }),
    ...(change.upstreamProject !== undefined && { upstream_project: change.upstreamProject }),
    ...(change.customHost !== undefined && { custom_host: change.customHost }),
    ...(change.fields !== undefined && { credential_fields: fieldsColumn(change.fields) }),
    ...(change.budget !== undefined && budgetColumns(change.budget)),
    ...(change.rateLimit !== undefined && rateLimitColumns(change.rateLimit)),
  };
}

function fromRow(row: VirtualKeyRow): VirtualKeyRecord {
  return {
    id: row.id,
    ...ownershipOf(row),
    slug: row.slug,
    name: row.name,
    provider: row.provider,
    encryptedKey: row.encrypted_key,
    keyHint: row.key_hint,
    upstreamOrganization: row.upstream_organization,
    upstreamProject: row.upstream_project,
    customHost: row.custom_host,
    fields: row.credential_fields ? (JSON.parse(row.credential_fields) as StoredCredentialFields) : {},
    budget: budgetOf(row),
    rateLimit: rateLimitOf(row),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** No fields are stored as null, so rows from before 0012 and keys without fields read alike. */
function fieldsColumn(fields: StoredCredentialFields): string | null {
  return Object.keys(fields).length === 0 ? null : JSON.stringify(fields);
}
