import type { SealedSecret } from "../crypto/sealed-secret.ts";
import type { Ownership } from "./control-plane.ts";

/** The events a webhook may subscribe to. */
export const WEBHOOK_EVENT_TYPES = ["budget.threshold_crossed", "run.halted", "spend.drift", "experiment.stopped"] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** A receiver of the workspace's events: signed JSON POSTs to `url`. */
export interface WebhookRecord extends Ownership {
  id: string;
  url: string;
  description: string | null;
  /** The HMAC-SHA256 key deliveries are signed with; sealed at rest, never shown after creation. */
  secret: SealedSecret;
  events: readonly WebhookEventType[];
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event's delivery to one webhook, with its attempts' outcome. */
export interface WebhookDeliveryRecord {
  /** UUIDv7: time order. */
  id: string;
  webhookId: string;
  workspaceId: string;
  eventId: string;
  eventType: WebhookEventType;
  /** What makes the event once per webhook (`budget:<id>:<period>:<threshold>`): a second one with it is not queued. */
  dedupKey: string;
  /** The JSON body as sent (and signed). */
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
}
