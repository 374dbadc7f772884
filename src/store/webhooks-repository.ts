import type { Kysely, Selectable } from "kysely";
import { isSealedSecret, type SealedSecret } from "../crypto/sealed-secret.ts";
import type { Ownership } from "../records/control-plane.ts";
import { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, type DeliveryStatus, type WebhookDeliveryRecord, type WebhookEventType, type WebhookRecord } from "../records/webhook.ts";
import type { WebhookDeliveriesTable, WebhooksTable } from "./budget-tables.ts";
import { ownershipColumns, ownershipOf } from "./ownership-columns.ts";
import type { Database } from "./schema.ts";

export interface NewWebhook extends Ownership {
  id: string;
  url: string;
  description: string | null;
  secret: SealedSecret;
  events: readonly WebhookEventType[];
  enabled: boolean;
  createdAt: string;
}

/** Fields absent are kept. */
export interface WebhookChange {
  url?: string;
  description?: string | null;
  secret?: SealedSecret;
  events?: readonly WebhookEventType[];
  enabled?: boolean;
  updatedBy: string | null;
  at: string;
}

/** An event's delivery to one webhook, as queued. */
export interface NewDelivery {
  id: string;
  webhookId: string;
  workspaceId: string;
  eventId: string;
  eventType: WebhookEventType;
  dedupKey: string;
  payload: string;
}

/** How an attempt ended: delivered, to be tried again at `nextAttemptAt`, or failed for good. */
export interface DeliveryOutcome {
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  statusCode: number | null;
  error: string | null;
  deliveredAt: string | null;
}

/** Webhooks of a workspace, and their deliveries. */
export interface WebhooksRepository {
  create(webhook: NewWebhook): Promise<WebhookRecord>;
  /** Newest first. */
  list(workspaceId: string): Promise<WebhookRecord[]>;
  get(workspaceId: string, id: string): Promise<WebhookRecord | undefined>;
  update(workspaceId: string, id: string, change: WebhookChange): Promise<WebhookRecord | undefined>;
  /** Deletes the webhook and its deliveries. */
  delete(workspaceId: string, id: string): Promise<boolean>;
  /** The workspace's enabled webhooks that take `type`. */
  subscribed(workspaceId: string, type: WebhookEventType): Promise<WebhookRecord[]>;
  /** A webhook by id in any workspace (the dispatcher, which knows a delivery's webhook by id). */
  getAnywhere(id: string): Promise<WebhookRecord | undefined>;
  /** Queues each delivery unless one with its `(webhookId, dedupKey)` exists; how many were queued. */
  enqueue(deliveries: readonly NewDelivery[], at: string): Promise<number>;
  /**
   * Takes up to `limit` pending deliveries due at `now` that no live lease holds, leasing each to
   * the caller until `leaseUntil` (a compare-and-set: of replicas racing, one takes each).
   */
  claimDue(now: string, leaseUntil: string, limit: number): Promise<WebhookDeliveryRecord[]>;
  /** Records an attempt's outcome and ends the lease. */
  finish(id: string, outcome: DeliveryOutcome): Promise<void>;
  /** A webhook's deliveries, newest first, before the delivery `before` when given. */
  deliveries(workspaceId: string, webhookId: string, options: { limit: number; before?: string; status?: DeliveryStatus }): Promise<WebhookDeliveryRecord[]>;
}

type WebhookRow = Selectable<WebhooksTable>;
type DeliveryRow = Selectable<WebhookDeliveriesTable>;

export function createWebhooksRepository(db: Kysely<Database>): WebhooksRepository {
  return {
    async create(webhook) {
      const row: WebhookRow = {
        id: webhook.id,
        ...ownershipColumns(webhook),
        url: webhook.url,
        description: webhook.description,
        secret: JSON.stringify(webhook.secret),
        events: JSON.stringify(webhook.events),
        enabled: webhook.enabled ? 1 : 0,
        created_at: webhook.createdAt,
        updated_at: webhook.createdAt,
      };
      await db.insertInto("webhooks").values(row).execute();
      return webhookOf(row);
    },
    async list(workspaceId) {
      const rows = await db.selectFrom("webhooks").selectAll().where("workspace_id", "=", workspaceId).orderBy("created_at", "desc").orderBy("id", "desc").execute();
      return rows.map(webhookOf);
    },
    async get(workspaceId, id) {
      const row = await db.selectFrom("webhooks").selectAll().where("workspace_id", "=", workspaceId).where("id", "=", id).executeTakeFirst();
      return row && webhookOf(row);
    },
    async update(workspaceId, id, change) {
      const row = await db
        .updateTable("webhooks")
        .set({
          updated_by: change.updatedBy,
          updated_at: change.at,
          ...(change.url !== undefined && { url: change.url }),
          ...(change.description !== undefined && { description: change.description }),
          ...(change.secret !== undefined && { secret: JSON.stringify(change.secret) }),
          ...(change.events !== undefined && { events: JSON.stringify(change.events) }),
          ...(change.enabled !== undefined && { enabled: change.enabled ? 1 : 0 }),
        })
        .where("workspace_id", "=", workspaceId)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirst();
      return row && webhookOf(row);
    },
    async delete(workspaceId, id) {
      const result = await db.deleteFrom("webhooks").where("workspace_id", "=", workspaceId).where("id", "=", id).executeTakeFirst();
      if (result.numDeletedRows === 0n) return false;
      await db.deleteFrom("webhook_deliveries").where("webhook_id", "=", id).execute();
      return true;
    },
    async subscribed(workspaceId, type) {
      const rows = await db.selectFrom("webhooks").selectAll().where("workspace_id", "=", workspaceId).where("enabled", "=", 1).execute();
      return rows.map(webhookOf).filter((webhook) => webhook.events.includes(type));
    },
    async getAnywhere(id) {
      const row = await db.selectFrom("webhooks").selectAll().where("id", "=", id).executeTakeFirst();
      return row && webhookOf(row);
    },
    async enqueue(deliveries, at) {
      let queued = 0;
      for (const delivery of deliveries) {
        const result = await db
          .insertInto("webhook_deliveries")
          .values({
            id: delivery.id,
            webhook_id: delivery.webhookId,
            workspace_id: delivery.workspaceId,
            event_id: delivery.eventId,
            event_type: delivery.eventType,
            dedup_key: delivery.dedupKey,
            payload: delivery.payload,
            status: "pending",
            attempts: 0,
            next_attempt_at: at,
            lease_until: null,
            last_status_code: null,
            last_error: null,
            created_at: at,
            delivered_at: null,
          })
          .onConflict((conflict) => conflict.columns(["webhook_id", "dedup_key"]).doNothing())
          .executeTakeFirst();
        queued += Number(result.numInsertedOrUpdatedRows ?? 0n);
      }
      return queued;
    },
    async claimDue(now, leaseUntil, limit) {
      const due = await db
        .selectFrom("webhook_deliveries")
        .selectAll()
        .where("status", "=", "pending")
        .where("next_attempt_at", "<=", now)
        .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
        .orderBy("next_attempt_at")
        .limit(limit)
        .execute();
      const claimed: WebhookDeliveryRecord[] = [];
      for (const row of due) {
        const result = await db
          .updateTable("webhook_deliveries")
          .set({ lease_until: leaseUntil })
          .where("id", "=", row.id)
          .where("status", "=", "pending")
          .where((eb) => (row.lease_until === null ? eb("lease_until", "is", null) : eb("lease_until", "=", row.lease_until)))
          .executeTakeFirst();
        if (result.numUpdatedRows === 1n) claimed.push(deliveryOf(row));
      }
      return claimed;
    },
    async finish(id, outcome) {
      await db
        .updateTable("webhook_deliveries")
        .set({
          status: outcome.status,
          attempts: outcome.attempts,
          next_attempt_at: outcome.nextAttemptAt,
          lease_until: null,
          last_status_code: outcome.statusCode,
          last_error: outcome.error,
          delivered_at: outcome.deliveredAt,
        })
        .where("id", "=", id)
        .execute();
    },
    async deliveries(workspaceId, webhookId, options) {
      let query = db.selectFrom("webhook_deliveries").selectAll().where("workspace_id", "=", workspaceId).where("webhook_id", "=", webhookId);
      if (options.before) query = query.where("id", "<", options.before);
      if (options.status) query = query.where("status", "=", options.status);
      const rows = await query.orderBy("id", "desc").limit(options.limit).execute();
      return rows.map(deliveryOf);
    },
  };
}

function webhookOf(row: WebhookRow): WebhookRecord {
  const secret: unknown = JSON.parse(row.secret);
  const events = (JSON.parse(row.events) as unknown[]).filter((event): event is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly unknown[]).includes(event));
  return {
    id: row.id,
    ...ownershipOf(row),
    url: row.url,
    description: row.description,
    secret: isSealedSecret(secret) ? secret : { $sealed: "" },
    events,
    enabled: Number(row.enabled) === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function deliveryOf(row: DeliveryRow): WebhookDeliveryRecord {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    workspaceId: row.workspace_id,
    eventId: row.event_id,
    eventType: (WEBHOOK_EVENT_TYPES as readonly string[]).includes(row.event_type) ? (row.event_type as WebhookEventType) : "budget.threshold_crossed",
    dedupKey: row.dedup_key,
    payload: row.payload,
    status: (DELIVERY_STATUSES as readonly string[]).includes(row.status) ? (row.status as DeliveryStatus) : "failed",
    attempts: Number(row.attempts),
    nextAttemptAt: row.next_attempt_at,
    lastStatusCode: row.last_status_code === null ? null : Number(row.last_status_code),
    lastError: row.last_error,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
  };
}
