import { randomBytes } from "node:crypto";
import { GatewayError } from "../errors.ts";
import type { Webhook, WebhookDelivery } from "../generated/schemas.gen.ts";
import { MASKED_SECRET } from "../crypto/sealed-secret.ts";
import type { CheckCustomHost } from "../net/custom-host.ts";
import { OPERATOR_KEY_ID } from "./auth-context.ts";
import type { WebhookDeliveryRecord, WebhookRecord } from "../records/webhook.ts";
import { MAX_HOST_CHARS } from "./stored-limits.ts";

/**
 * A webhook's URL: at most 2,048 characters and passing the custom-host guard (a private,
 * loopback-unless-trusted or unresolvable address is refused), as a virtual key's custom host.
 * Checked again, pinned, at every delivery. Throws GatewayError (400 naming `url`).
 */
export async function checkedWebhookUrl(url: string, checkCustomHost: CheckCustomHost): Promise<string> {
  if (url.length > MAX_HOST_CHARS) throw new GatewayError("invalid_request", `url is longer than ${MAX_HOST_CHARS} characters.`, { param: "url" });
  const checked = await checkCustomHost(url, "url");
  if (!checked.ok) {
    const code = checked.error.status === 400 ? checked.error.code : "invalid_request";
    throw new GatewayError(code, checked.error.message, { param: "url" });
  }
  return url;
}

/** A new signing secret: `whsec_` and 32 random bytes, base64url. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

/** The webhook as the API shows it: the secret masked. */
export function webhookView(record: WebhookRecord): Webhook {
  return {
    id: record.id,
    object: "webhook",
    url: record.url,
    description: record.description,
    events: [...record.events],
    enabled: record.enabled,
    secret: MASKED_SECRET,
    organisation_id: record.organisationId,
    workspace_id: record.workspaceId,
    owner_id: record.ownerId ?? OPERATOR_KEY_ID,
    updated_by: record.updatedBy ?? OPERATOR_KEY_ID,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}

/** A delivery as the API shows it, with the event it carries. */
export function deliveryView(record: WebhookDeliveryRecord): WebhookDelivery {
  let event: Record<string, unknown> = {};
  try {
    event = JSON.parse(record.payload) as Record<string, unknown>;
  } catch {
    // Stored by this gateway as JSON: nothing else is ever there.
  }
  return {
    id: record.id,
    object: "webhook_delivery",
    webhook_id: record.webhookId,
    event_id: record.eventId,
    event_type: record.eventType,
    status: record.status,
    attempts: record.attempts,
    next_attempt_at: record.nextAttemptAt,
    last_status_code: record.lastStatusCode,
    last_error: record.lastError,
    created_at: record.createdAt,
    delivered_at: record.deliveredAt,
    event,
  };
}
