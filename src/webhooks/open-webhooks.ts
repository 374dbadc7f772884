import type { GatewayConfig } from "../config.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import type { CheckCustomHost } from "../net/custom-host.ts";
import type { FetchLike } from "../net/upstream-call.ts";
import type { SharedRedis } from "../shared-state/redis.ts";
import type { WebhooksRepository } from "../store/webhooks-repository.ts";
import { WebhookDispatcher } from "./webhook-dispatcher.ts";
import { WebhookEvents } from "./webhook-events.ts";

export interface OpenedWebhooks {
  events: WebhookEvents;
  dispatcher: WebhookDispatcher;
  /** Queues what is pending, then waits for the attempts in flight. */
  close(): Promise<void>;
}

/** The webhook events and their dispatcher, started: deliveries go out in the background from here on. */
export function openWebhooks(deps: {
  config: GatewayConfig;
  store: { webhooks: WebhooksRepository };
  redis: SharedRedis | null;
  secrets: SecretBox;
  fetch: FetchLike;
  checkCustomHost: CheckCustomHost;
  version: string;
}): OpenedWebhooks {
  const { config } = deps;
  const dispatcher = new WebhookDispatcher({
    store: deps.store,
    secrets: deps.secrets,
    fetch: deps.fetch,
    checkCustomHost: deps.checkCustomHost,
    timeoutMs: config.GATEWAY_WEBHOOK_TIMEOUT_MS,
    maxAttempts: config.GATEWAY_WEBHOOK_MAX_ATTEMPTS,
    retryBaseMs: config.GATEWAY_WEBHOOK_RETRY_BASE_MS,
    pollIntervalMs: config.GATEWAY_WEBHOOK_POLL_INTERVAL_MS,
    version: deps.version,
  });
  const events = new WebhookEvents({ store: deps.store, redis: deps.redis, queued: () => dispatcher.kick() });
  dispatcher.start();
  return {
    events,
    dispatcher,
    close: async () => {
      await events.settled();
      await dispatcher.close();
    },
  };
}
