import { isoNow, uuidv7 } from "../lib/ids.ts";
import type { WebhookEventType } from "../records/webhook.ts";
import type { SharedRedis } from "../shared-state/redis.ts";
import type { WebhooksRepository } from "../store/webhooks-repository.ts";

/** An event for the workspace's webhooks. */
export interface WebhookEvent {
  type: WebhookEventType;
  workspaceId: string;
  /**
   * What makes the event once: a second event with the same key is never queued, whatever
   * replica finds it (`budget:<id>:<member>:<period>:<threshold>`, `run:<trace id>:<halt>`).
   */
  dedupKey: string;
  data: Record<string, unknown>;
}

/** How long an event's key is remembered in Redis: longer than the longest period (a month). */
const CLAIM_TTL_MS = 40 * 86_400_000;
const CLAIM_PREFIX = "gw:webhook-event:";

export interface WebhookEventsOptions {
  store: { webhooks: WebhooksRepository };
  redis: SharedRedis | null;
  /** Told when deliveries were queued here, so they go out at once. */
  queued(): void;
  now?: () => number;
  report?: (line: string) => void;
}

/**
 * Turns events into deliveries, once per event across replicas: with Redis, the first replica to
 * set the event's key (`SET NX`) queues it and the others stop there; in the store, a delivery is
 * unique by `(webhook, dedup key)`, so even replicas metering alone while Redis is down queue it
 * once. The body (`{id, type, created_at, workspace_id, data}`) is built here, once, and signed
 * per attempt by the dispatcher. Runs off the request path; never throws.
 */
export class WebhookEvents {
  private readonly now: () => number;
  private readonly report: (line: string) => void;
  private readonly pending = new Set<Promise<number>>();

  constructor(private readonly options: WebhookEventsOptions) {
    this.now = options.now ?? Date.now;
    this.report = options.report ?? ((line) => console.error(line));
  }

  /** Queues the event for every webhook that takes it; how many deliveries were queued (0 when another replica had it). */
  emit(event: WebhookEvent): Promise<number> {
    const queued = this.queue(event).catch((error: unknown) => {
      this.report(`[gateway] webhooks: could not queue ${event.type} (${error instanceof Error ? error.message : String(error)})`);
      return 0;
    });
    this.pending.add(queued);
    void queued.finally(() => this.pending.delete(queued));
    return queued;
  }

  /** Resolves once every event emitted so far is queued (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private async queue(event: WebhookEvent): Promise<number> {
    const webhooks = await this.options.store.webhooks.subscribed(event.workspaceId, event.type);
    if (webhooks.length === 0) return 0;
    const { redis } = this.options;
    if (redis?.available) {
      try {
        const claimed = await redis.client.set(`${CLAIM_PREFIX}${event.workspaceId}:${event.dedupKey}`, "1", "PX", CLAIM_TTL_MS, "NX");
        if (claimed !== "OK") return 0;
      } catch {
        // Redis failing here leaves the store's uniqueness to keep the event once.
      }
    }
    const now = this.now();
    const eventId = `evt_${uuidv7(now)}`;
    const payload = JSON.stringify({ id: eventId, type: event.type, created_at: isoNow(now), workspace_id: event.workspaceId, data: event.data });
    const queued = await this.options.store.webhooks.enqueue(
      webhooks.map((webhook) => ({
        id: uuidv7(now),
        webhookId: webhook.id,
        workspaceId: event.workspaceId,
        eventId,
        eventType: event.type,
        dedupKey: event.dedupKey,
        payload,
      })),
      isoNow(now),
    );
    if (queued > 0) this.options.queued();
    return queued;
  }
}
