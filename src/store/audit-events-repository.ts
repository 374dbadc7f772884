import type { Kysely, Selectable } from "kysely";
import type { AuditAction, AuditEventRecord, AuditResourceType, AuditView } from "../records/audit-event.ts";
import type { AuditEventsTable, Database } from "./schema.ts";

/** One page's filters; every one given must match. `from` inclusive, `to` exclusive (ISO instants). */
export interface AuditEventFilters {
  organisationId: string;
  workspaceId: string;
  action?: AuditAction;
  resourceType?: AuditResourceType;
  resourceId?: string;
  actorKeyId?: string;
  from?: string;
  to?: string;
  /** The cursor: only events older than this id. */
  before?: string;
  limit: number;
}

/** The audit log. Written in the transaction of the change it records (`Store.transaction`). */
export interface AuditEventsRepository {
  insert(event: AuditEventRecord): Promise<void>;
  /** One page, newest first; `hasMore` when older events match too. */
  list(filters: AuditEventFilters): Promise<{ records: AuditEventRecord[]; hasMore: boolean }>;
}

export function createAuditEventsRepository(db: Kysely<Database>): AuditEventsRepository {
  return {
    async insert(event) {
      await db.insertInto("audit_events").values(toRow(event)).execute();
    },

    async list(filters) {
      const limit = Math.max(1, Math.trunc(filters.limit));
      let query = db
        .selectFrom("audit_events")
        .selectAll()
        .where("workspace_id", "=", filters.workspaceId)
        .where("organisation_id", "=", filters.organisationId);
      if (filters.action !== undefined) query = query.where("action", "=", filters.action);
      if (filters.resourceType !== undefined) query = query.where("resource_type", "=", filters.resourceType);
      if (filters.resourceId !== undefined) query = query.where("resource_id", "=", filters.resourceId);
      if (filters.actorKeyId !== undefined) query = query.where("actor_key_id", "=", filters.actorKeyId);
      if (filters.from !== undefined) query = query.where("created_at", ">=", isoInstant(filters.from));
      if (filters.to !== undefined) query = query.where("created_at", "<", isoInstant(filters.to));
      if (filters.before !== undefined) query = query.where("id", "<", filters.before);
      const rows = await query.orderBy("id", "desc").limit(limit + 1).execute();
      return { records: rows.slice(0, limit).map(fromRow), hasMore: rows.length > limit };
    },
  };
}

/** Stored instants are `toISOString()` text: a bound is compared in that same form. */
function isoInstant(value: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new RangeError(`not an ISO 8601 instant: ${value}`);
  return new Date(ms).toISOString();
}

function toRow(event: AuditEventRecord): AuditEventsTable {
  return {
    id: event.id,
    organisation_id: event.organisationId,
    workspace_id: event.workspaceId,
    actor_key_id: event.actorKeyId,
    action: event.action,
    resource_type: event.resourceType,
    resource_id: event.resourceId,
    resource_slug: event.resourceSlug,
    before: event.before === null ? null : JSON.stringify(event.before),
    after: event.after === null ? null : JSON.stringify(event.after),
    request_id: event.requestId,
    created_at: event.createdAt,
  };
}

function fromRow(row: Selectable<AuditEventsTable>): AuditEventRecord {
  return {
    id: row.id,
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id,
    actorKeyId: row.actor_key_id,
    // Values a newer version wrote pass through as text; the view's enum is this version's.
    action: row.action as AuditAction,
    resourceType: row.resource_type as AuditResourceType,
    resourceId: row.resource_id,
    resourceSlug: row.resource_slug,
    before: parseView(row.before),
    after: parseView(row.after),
    requestId: row.request_id,
    createdAt: row.created_at,
  };
}

function parseView(text: string | null): AuditView | null {
  return text === null ? null : (JSON.parse(text) as AuditView);
}
