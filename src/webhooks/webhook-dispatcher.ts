import { openSealedSecret } from "../crypto/sealed-secret.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import { isoNow } from "../lib/ids.ts";
import type { CheckCustomHost } from "../net/custom-host.ts";
import type { FetchLike } from "../net/upstream-call.ts";
import type { WebhookDeliveryRecord } from "../records/webhook.ts";
import type { DeliveryOutcome, WebhooksRepository } from "../store/webhooks-repository.ts";
import { signatureHeader, SIGNATURE_HEADER } from "./webhook-signature.ts";

export interface DispatcherOptions {
  store: { webhooks: WebhooksRepository };
  secrets: SecretBox;
  /** The pinned fetch: a connection goes only to an address the custom-host guard checked. */
  fetch: FetchLike;
  checkCustomHost: CheckCustomHost;
  /** `GATEWAY_WEBHOOK_TIMEOUT_MS`. */
  timeoutMs: number;
  /** `GATEWAY_WEBHOOK_MAX_ATTEMPTS`. */
  maxAttempts: number;
  /** `GATEWAY_WEBHOOK_RETRY_BASE_MS`. */
  retryBaseMs: number;
  /** `GATEWAY_WEBHOOK_POLL_INTERVAL_MS`. */
  pollIntervalMs: number;
  version: string;
  now?: () => number;
  report?: (line: string) => void;
}

/** Deliveries one replica sends at once: a receiver that hangs holds one until the timeout, never a request. */
const MAX_IN_FLIGHT = 8;
/** The longest wait between two attempts. */
const MAX_RETRY_MS = 6 * 3_600_000;

/** The wait after a delivery's `attempts`-th failed attempt: base, then three times the last, at most six hours. */
export function retryDelayMs(attempts: number, baseMs: number): number {
  return Math.min(MAX_RETRY_MS, baseMs * 3 ** Math.max(0, attempts - 1));
}

/**
 * Sends queued deliveries, off every request's path: every `pollIntervalMs` (and at once when an
 * event is queued here) it leases the due ones from the store (a compare-and-set, so of several
 * replicas one sends each), POSTs each signed body with a timeout and no redirects, and records
 * the outcome: delivered on a 2xx; otherwise tried again after `retryDelayMs`, and `failed` after
 * `maxAttempts`. The URL is checked by the custom-host guard again at each attempt. Never throws.
 */
export class WebhookDispatcher {
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private passing: Promise<void> | null = null;
  private again = false;
  private closed = false;
  /** Aborted at close: an attempt in flight ends at once, unrecorded, and its lease lets another replica (or the next start) send it. */
  private readonly stopping = new AbortController();
  private readonly now: () => number;
  private readonly report: (line: string) => void;

  constructor(private readonly options: DispatcherOptions) {
    this.now = options.now ?? Date.now;
    this.report = options.report ?? ((line) => console.error(line));
  }

  start(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => this.kick(), this.options.pollIntervalMs);
    (this.timer as { unref?: () => void }).unref?.();
  }

  /** Looks for due deliveries now (coalesced with a pass already running). */
  kick(): void {
    if (this.closed) return;
    if (this.passing) {
      this.again = true;
      return;
    }
    this.passing = this.pass()
      .catch((error: unknown) => this.report(`[gateway] webhooks: could not read due deliveries (${error instanceof Error ? error.message : String(error)})`))
      .finally(() => {
        this.passing = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Stops looking, ends the attempts in flight, and waits for them. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.stopping.abort();
    await this.passing;
    await Promise.all([...this.inFlight]);
  }

  /** Resolves once every attempt started so far has ended (tests). */
  async settled(): Promise<void> {
    await this.passing;
    await Promise.all([...this.inFlight]);
  }

  private async pass(): Promise<void> {
    const free = MAX_IN_FLIGHT - this.inFlight.size;
    if (free <= 0) return;
    const now = this.now();
    const lease = isoNow(now + this.options.timeoutMs + 30_000);
    const claimed = await this.options.store.webhooks.claimDue(isoNow(now), lease, free);
    for (const delivery of claimed) {
      const attempt = this.attempt(delivery).finally(() => {
        this.inFlight.delete(attempt);
        // A slot freed: more may be due.
        this.kick();
      });
      this.inFlight.add(attempt);
    }
  }

  private async attempt(delivery: WebhookDeliveryRecord): Promise<void> {
    const attempts = delivery.attempts + 1;
    let outcome: DeliveryOutcome;
    try {
      const sent = await this.send(delivery, attempts);
      outcome =
        "delivered" in sent
          ? { status: "delivered", attempts, nextAttemptAt: null, statusCode: sent.delivered, error: null, deliveredAt: isoNow(this.now()) }
          : this.failed(attempts, sent.statusCode, sent.error, sent.final);
    } catch (error) {
      outcome = this.failed(attempts, null, error instanceof Error ? error.message : String(error), false);
    }
    if (this.stopping.signal.aborted) return;
    try {
      await this.options.store.webhooks.finish(delivery.id, outcome);
    } catch (error) {
      // The lease runs out and another pass tries it again: at least once.
      this.report(`[gateway] webhooks: could not record a delivery's outcome (${error instanceof Error ? error.message : String(error)})`);
    }
  }

  private failed(attempts: number, statusCode: number | null, error: string, final: boolean): DeliveryOutcome {
    const last = final || attempts >= this.options.maxAttempts;
    return {
      status: last ? "failed" : "pending",
      attempts,
      nextAttemptAt: last ? null : isoNow(this.now() + retryDelayMs(attempts, this.options.retryBaseMs)),
      statusCode,
      error: error.slice(0, 500),
      deliveredAt: null,
    };
  }

  /** The receiver's 2xx status; else why not (`final`: no later attempt can succeed). */
  private async send(delivery: WebhookDeliveryRecord, attempt: number): Promise<{ delivered: number } | { statusCode: number | null; error: string; final: boolean }> {
    const webhook = await this.options.store.webhooks.getAnywhere(delivery.webhookId);
    if (!webhook) return { statusCode: null, error: "The webhook was deleted.", final: true };
    if (!webhook.enabled) return { statusCode: null, error: "The webhook is disabled.", final: true };
    const checked = await this.options.checkCustomHost(webhook.url, "url");
    if (!checked.ok) return { statusCode: null, error: checked.error.message, final: false };
    const secret = openSealedSecret(webhook.secret, this.options.secrets);
    if (secret === null) return { statusCode: null, error: "The webhook's secret does not open under any key of GATEWAY_ENCRYPTION_KEY.", final: true };
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const signal = AbortSignal.any([timeout, this.stopping.signal]);
    let response: Response;
    try {
      response = await this.options.fetch(webhook.url, {
        method: "POST",
        // A redirect could lead anywhere: it is an answer, not a place to go.
        redirect: "manual",
        signal,
        headers: {
          "content-type": "application/json",
          "user-agent": `ai-gateway-webhooks/${this.options.version}`,
          "x-gateway-event-id": delivery.eventId,
          "x-gateway-event-type": delivery.eventType,
          "x-gateway-delivery-id": delivery.id,
          "x-gateway-delivery-attempt": String(attempt),
          [SIGNATURE_HEADER]: signatureHeader(secret, delivery.payload, Math.floor(this.now() / 1000)),
        },
        body: delivery.payload,
      });
    } catch (error) {
      if (timeout.aborted) return { statusCode: null, error: `No answer within ${this.options.timeoutMs} ms.`, final: false };
      return { statusCode: null, error: connectionError(error), final: false };
    }
    // The body is not read: a receiver's answer is its status.
    await response.body?.cancel().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { delivered: response.status };
    return { statusCode: response.status, error: `The receiver answered ${response.status}.`, final: false };
  }
}

/** What a failed connection says, without the URL (which may hold a token in its path). */
function connectionError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const code = typeof cause?.code === "string" ? cause.code : null;
  const message = typeof cause?.message === "string" ? cause.message : error instanceof Error ? error.message : String(error);
  return `Could not connect${code ? ` (${code})` : ""}: ${message.replace(/https?:\/\/\S+/g, "<url>")}`;
}
