import type { Kysely, Selectable } from "kysely";
import { API_KEY_ROLES, type ApiKeyRecord, type ApiKeyRole, type McpAccessRule } from "../records/api-key.ts";
import type { KeyBudget, KeyRateLimit } from "../records/control-plane.ts";
import type { RunLimits } from "../records/run-limits.ts";
import { budgetColumns, budgetOf, rateLimitColumns, rateLimitOf } from "./key-limit-columns.ts";
import type { ApiKeysTable, Database } from "./schema.ts";
import { transactionally } from "./transactionally.ts";

/** Fields absent are kept; `null` clears a budget or rate limit. */
export interface ApiKeyChange {
  name?: string;
  budget?: KeyBudget | null;
  rateLimit?: KeyRateLimit | null;
  /** `null` clears the expiry. */
  expiresAt?: string | null;
  /** `null` removes the rule. */
  mcpAccess?: McpAccessRule | null;
  /** `null` removes them. */
  runLimits?: RunLimits | null;
}

/** A rotation: the new secret's hash and prefix, and until when the replaced secret still works. */
export interface ApiKeyRotation {
  keyHash: string;
  keyPrefix: string;
  /** Null: the replaced secret stops at once (no grace period). */
  previousKeyExpiresAt: string | null;
}

/** Stored gateway keys. Scoping (organisation, workspace) is part of every mutating call. */
export interface ApiKeysRepository {
  /** Stores a new key. Rejects when the id or the key hash already exists. */
  insert(record: ApiKeyRecord): Promise<void>;
  /**
   * The key whose secret, or whose previous secret (the one its last rotation replaced), has this
   * SHA-256 hash, active, expired or revoked (the caller decides); undefined if none.
   */
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
  /**
   * Key `id` in scope, as `getById`, read after taking its row lock: inside a transaction, a
   * concurrent change of the key waits until this one ends, so the record is the one this
   * transaction changes (PostgreSQL otherwise reads a row another rotation is replacing).
   */
  getForChange(id: string, organisationId: string, workspaceId: string | null): Promise<ApiKeyRecord | undefined>;
  /** Changes key `id` in scope; the updated record, or undefined when no such key is in scope. */
  update(id: string, organisationId: string, workspaceId: string | null, change: ApiKeyChange): Promise<ApiKeyRecord | undefined>;
  /**
   * Gives key `id` in scope a new secret; the current one becomes its previous secret until
   * `previousKeyExpiresAt` (replacing any earlier previous secret), or stops at once when that is
   * null. Revoked keys are not rotated. The key after it, or undefined when no such key is in scope.
   */
  rotate(id: string, organisationId: string, workspaceId: string | null, rotation: ApiKeyRotation): Promise<ApiKeyRecord | undefined>;
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
      const row = await db
        .selectFrom("api_keys")
        .selectAll()
        .where((eb) => eb.or([eb("key_hash", "=", hash), eb("previous_key_hash", "=", hash)]))
        .executeTakeFirst();
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
      return transactionally(db, async (trx) => {
        let update = trx
          .updateTable("api_keys")
          .set({ revoked_at: at })
          .where("id", "=", id)
          .where("organisation_id", "=", organisationId)
          .where("revoked_at", "is", null);
        if (workspaceId !== null) update = update.where("workspace_id", "=", workspaceId);
        await update.execute();
        return scopedKey(trx, id, organisationId, workspaceId);
      });
    },

    getById(id, organisationId, workspaceId) {
      return scopedKey(db, id, organisationId, workspaceId);
    },

    async getForChange(id, organisationId, workspaceId) {
      // A write that changes nothing takes the row lock on both dialects (SQLite has no FOR UPDATE, and serialises writers anyway).
      let lock = db.updateTable("api_keys").set((eb) => ({ key_hash: eb.ref("key_hash") })).where("id", "=", id).where("organisation_id", "=", organisationId);
      if (workspaceId !== null) lock = lock.where("workspace_id", "=", workspaceId);
      await lock.execute();
      return scopedKey(db, id, organisationId, workspaceId);
    },

    update(id, organisationId, workspaceId, change) {
      return transactionally(db, async (trx) => {
        const columns = {
          ...(change.name !== undefined && { name: change.name }),
          ...(change.budget !== undefined && budgetColumns(change.budget)),
          ...(change.rateLimit !== undefined && rateLimitColumns(change.rateLimit)),
          ...(change.expiresAt !== undefined && { expires_at: change.expiresAt }),
          ...(change.mcpAccess !== undefined && { mcp_access: change.mcpAccess === null ? null : JSON.stringify(change.mcpAccess) }),
          ...(change.runLimits !== undefined && { run_limits: change.runLimits === null ? null : JSON.stringify(change.runLimits) }),
        };
        // A change of nothing is no UPDATE at all (SQL has no empty SET): the key is read as it is.
        if (Object.keys(columns).length > 0) {
          let update = trx.updateTable("api_keys").set(columns).where("id", "=", id).where("organisation_id", "=", organisationId);
          if (workspaceId !== null) update = update.where("workspace_id", "=", workspaceId);
          await update.execute();
        }
        return scopedKey(trx, id, organisationId, workspaceId);
      });
    },

    rotate(id, organisationId, workspaceId, rotation) {
      return transactionally(db, async (trx) => {
        // The right-hand sides read the row as it was, so `previous_key_hash` takes the replaced hash.
        let update = trx
          .updateTable("api_keys")
          .set((eb) => ({
            key_hash: rotation.keyHash,
            key_prefix: rotation.keyPrefix,
            previous_key_hash: rotation.previousKeyExpiresAt === null ? null : eb.ref("key_hash"),
            previous_key_expires_at: rotation.previousKeyExpiresAt,
          }))
          .where("id", "=", id)
          .where("organisation_id", "=", organisationId)
          .where("revoked_at", "is", null);
        if (workspaceId !== null) update = update.where("workspace_id", "=", workspaceId);
        await update.execute();
        return scopedKey(trx, id, organisationId, workspaceId);
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

/** Key `id` if it lies in scope (`workspaceId` null: any workspace of the organisation). */
async function scopedKey(db: Kysely<Database>, id: string, organisationId: string, workspaceId: string | null): Promise<ApiKeyRecord | undefined> {
  let select = db.selectFrom("api_keys").selectAll().where("id", "=", id).where("organisation_id", "=", organisationId);
  if (workspaceId !== null) select = select.where("workspace_id", "=", workspaceId);
  const row = await select.executeTakeFirst();
  return row && fromRow(row);
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
    expires_at: record.expiresAt,
    previous_key_hash: record.previousKeyHash,
    previous_key_expires_at: record.previousKeyExpiresAt,
    ...budgetColumns(record.budget),
    ...rateLimitColumns(record.rateLimit),
    mcp_access: record.mcpAccess === null ? null : JSON.stringify(record.mcpAccess),
    run_limits: record.runLimits ? JSON.stringify(record.runLimits) : null,
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
    expiresAt: row.expires_at,
    previousKeyHash: row.previous_key_hash,
    previousKeyExpiresAt: row.previous_key_expires_at,
    budget: budgetOf(row),
    rateLimit: rateLimitOf(row),
    mcpAccess: mcpAccessOf(row.mcp_access),
    runLimits: runLimitsOf(row.run_limits),
  };
}

/** Stored run limits; a value that does not read as them (written by a newer version) halts at once: the safer side. */
function runLimitsOf(text: string | null): RunLimits | null {
  if (text === null) return null;
  const number = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : null);
  try {
    const stored = JSON.parse(text) as Record<string, unknown>;
    const velocity = Array.isArray(stored.velocity) ? (stored.velocity as RunLimits["velocity"]).filter((rule) => typeof rule?.maxCostUsdPerMinute === "number") : [];
    return {
      maxRequests: number(stored.maxRequests),
      maxToolCalls: number(stored.maxToolCalls),
      maxCostUsd: number(stored.maxCostUsd),
      maxDurationSeconds: number(stored.maxDurationSeconds),
      repeatLimit: number(stored.repeatLimit),
      velocity,
    };
  } catch {
    return { maxRequests: 0, maxToolCalls: 0, maxCostUsd: null, maxDurationSeconds: null, repeatLimit: null, velocity: [] };
  }
}

/** A stored rule that does not read as one (written by a newer version) allows nothing: the safer side. */
function mcpAccessOf(text: string | null): McpAccessRule | null {
  if (text === null) return null;
  try {
    const rule = JSON.parse(text) as McpAccessRule;
    if (rule && typeof rule.servers === "object") return rule;
  } catch {
    // Read as below.
  }
  return { servers: {} };
}

/** A role this code does not know (stored by a newer version) maps to the least power. */
function isRole(role: string): role is ApiKeyRole {
  return (API_KEY_ROLES as readonly string[]).includes(role);
}
