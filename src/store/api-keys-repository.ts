import type { Kysely, Selectable } from "kysely";
import { API_KEY_ROLES, type ApiKeyRecord, type ApiKeyRole } from "../auth/api-key-record.ts";
import type { KeyBudget, KeyRateLimit } from "../control-plane/records.ts";
import { budgetColumns, budgetOf, rateLimitColumns, rateLimitOf } from "./key-limit-columns.ts";
import type { ApiKeysTable, Database } from "./schema.ts";

/** Fields absent are kept; `null` clears a budget or rate limit. */
export interface ApiKeyChange {
  name?: string;
  budget?: KeyBudget | null;
  rateLimit?: KeyRateLimit | null;
}

/** Stored gateway keys. Scoping (organisation, workspace) is part of every mutating call. */
export interface ApiKeysRepository {
  /** Stores a new key. Rejects when the id or the key hash already exists. */
  insert(record: ApiKeyRecord): Promise<void>;
  /** The key with this SHA-256 hash, active or revoked (the caller decides); undefined if none. */
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  /** Every key of the workspace, newest first, revoked ones included (with `revokedAt`). */
  listByWorkspace(organisationId: string, workspaceId: string): Promise<ApiKeyRecord[]>;
  /**
   * Revokes key `id` if it lies in scope: the organisation and, unless `workspaceId` is null,
   * that workspace (null = any workspace of the organisation). Returns the revoked record,
   * or undefined when no such key is in scope. Revoking twice keeps the first `revokedAt`.
   */
  revoke(id: string, organisationId: string, workspaceId: string | null, at: string): Promise<ApiKeyRecord | undefined>;
  /** Key `id` if it lies in scope (`workspaceId` null: any workspace of the organisation); undefined if none. */
  getById(id: string, organisationId: string, workspaceId: string | null): Promise<ApiKeyRecord | undefined>;
  /** Changes key `id` in scope; the updated record, or undefined when no such key is in scope. */
  update(id: string, organisationId: string, workspaceId: string | null, change: ApiKeyChange): Promise<ApiKeyRecord | undefined>;
  /** Keys not revoked, across all organisations (zero means a fresh install). */
  countActive(): Promise<number>;
}

/** The repository over `api_keys`. */
export function createApiKeysRepository(db: Kysely<Database>): ApiKeysRepository {
  return {
    async insert(record) {
      await db.insertInto("api_keys").values(toRow(record)).execute();
    },

    async findByHash(hash) {
      const row = await db.selectFrom("api_keys").selectAll().where("key_hash", "=", hash).executeTakeFirst();
      return row && fromRow(row);
    },

    async listByWorkspace(organisationId, workspaceId) {
      const rows = await db
        .selectFrom("api_keys")
        .selectAll()
        .where("organisation_id", "=", organisationId)
        .where("workspace_id", "=", workspaceId)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .execute();
      return rows.map(fromRow);
    },

    revoke(id, organisationId, workspaceId, at) {
      return db.transaction().execute(async (trx) => {
        let update = trx
          .updateTable("api_keys")
          .set({ revoked_at: at })
          .where("id", "=", id)
          .where("organisation_id", "=", organisationId)
          .where("revoked_at", "is", null);
        if (workspaceId !== null) update = update.where("workspace_id", "=", workspaceId);
        await update.execute();
        let select = trx.selectFrom("api_keys").selectAll().where("id", "=", id).where("organisation_id", "=", organisationId);
        if (workspaceId !== null) select = select.where("workspace_id", "=", workspaceId);
        const row = await select.executeTakeFirst();
        return row && fromRow(row);
      });
    },

    async getById(id, organisationId, workspaceId) {
      let select = db.selectFrom("api_keys").selectAll().where("id", "=", id).where("organisation_id", "=", organisationId);
      if (workspaceId !== null) select = select.where("workspace_id", "=", workspaceId);
      const row = await select.executeTakeFirst();
      return row && fromRow(row);
    },

    update(id, organisationId, workspaceId, change) {
      return db.transaction().execute(async (trx) => {
        const columns = {
          ...(change.name !== undefined && { name: change.name }),
          ...(change.budget !== undefined && budgetColumns(change.budget)),
          ...(change.rateLimit !== undefined && rateLimitColumns(change.rateLimit)),
        };
        // A change of nothing is no UPDATE at all (SQL has no empty SET): the key is read as it is.
        if (Object.keys(columns).length > 0) {
          let update = trx.updateTable("api_keys").set(columns).where("id", "=", id).where("organisation_id", "=", organisationId);
          if (workspaceId !== null) update = update.where("workspace_id", "=", workspaceId);
          await update.execute();
        }
        let select = trx.selectFrom("api_keys").selectAll().where("id", "=", id).where("organisation_id", "=", organisationId);
        if (workspaceId !== null) select = select.where("workspace_id", "=", workspaceId);
        const row = await select.executeTakeFirst();
        return row && fromRow(row);
      });
    },

    async countActive() {
      const row = await db
        .selectFrom("api_keys")
        .select((eb) => eb.fn.countAll().as("count"))
        .where("revoked_at", "is", null)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },
  };
}

function toRow(record: ApiKeyRecord): ApiKeysTable {
  return {
    id: record.id,
    organisation_id: record.organisationId,
    workspace_id: record.workspaceId,
    name: record.name,
    role: record.role,
    organisation_admin: record.organisationAdmin ? 1 : 0,
    key_hash: record.keyHash,
    key_prefix: record.keyPrefix,
    created_at: record.createdAt,
    created_by: record.createdBy,
    revoked_at: record.revokedAt,
    ...budgetColumns(record.budget),
    ...rateLimitColumns(record.rateLimit),
  };
}

function fromRow(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    id: row.id,
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id,
    name: row.name,
    role: isRole(row.role) ? row.role : "service",
    organisationAdmin: row.organisation_admin === 1,
    keyHash: row.key_hash,
    keyPrefix: row.key_prefix,
    createdAt: row.created_at,
    createdBy: row.created_by,
    revokedAt: row.revoked_at,
    budget: budgetOf(row),
    rateLimit: rateLimitOf(row),
  };
}

/** A role this code does not know (stored by a newer version) maps to the least power. */
function isRole(role: string): role is ApiKeyRole {
  return (API_KEY_ROLES as readonly string[]).includes(role);
}
