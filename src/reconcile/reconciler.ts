import { fail, GatewayError, ok, type Result } from "../errors.ts";
import { openSealedSecret } from "../crypto/sealed-secret.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import { isoNow } from "../lib/ids.ts";
import type { CheckCustomHost } from "../net/custom-host.ts";
import type { FetchLike } from "../net/upstream-call.ts";
import type { ReconciliationRow, ReconciliationSettingsRecord } from "../records/reconciliation.ts";
import type { AnalyticsRepository } from "../store/analytics-repository.ts";
import type { ReconciliationRepository } from "../store/reconciliation-repository.ts";
import type { WebhookEvent } from "../webhooks/webhook-events.ts";
import { comparedModel, DEFAULT_REPORT_BASE_URLS, readProviderReport, type FetchReport, type ProviderRow } from "./provider-reports.ts";

const DAY_MS = 86_400_000;
/** One report request's limit: a provider slower than this fails the reconciliation with a 502. */
const REPORT_TIMEOUT_MS = 30_000;
/** How often each replica looks whether a key's daily run is due. */
const DAILY_CHECK_MS = 3_600_000;
/** Days the daily run compares: providers' reports of the latest days fill in over a day or two. */
const DAILY_DAYS = 3;

export interface ReconcilerDeps {
  store: { reconciliation: ReconciliationRepository; analytics: AnalyticsRepository; virtualKeys: { getById(workspaceId: string, id: string): Promise<{ id: string; slug: string } | undefined> } };
  secrets: SecretBox;
  fetch: FetchLike;
  checkCustomHost: CheckCustomHost;
  /** `spend.drift`, once per key, day and model. */
  emit(event: WebhookEvent): void;
  now?: () => number;
  report?: (line: string) => void;
}

/** What one reconciliation compared. */
export interface Reconciliation {
  rows: ReconciliationRow[];
}

/**
 * Compares a virtual key's logged cost and tokens with its provider's own reports, per UTC day
 * and model (`provider-reports.ts` reads them; `comparedModel` names both sides' models alike),
 * stores the rows, and sends `spend.drift` for each row past both of the key's thresholds.
 */
export class Reconciler {
  private readonly now: () => number;
  private readonly report: (line: string) => void;
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<void> | null = null;

  constructor(private readonly deps: ReconcilerDeps) {
    this.now = deps.now ?? Date.now;
    this.report = deps.report ?? ((line) => console.error(line));
  }

  /** Reconciles `[startMs, endMs)` (whole UTC days). A provider that cannot be read is a 502 naming it, never its key. */
  async reconcile(settings: ReconciliationSettingsRecord, virtualKey: { id: string; slug: string }, startMs: number, endMs: number): Promise<Result<Reconciliation, GatewayError>> {
    const adminKey = openSealedSecret(settings.adminKey, this.deps.secrets);
    if (adminKey === null) return fail(new GatewayError("invalid_request", "The stored usage-reading key does not open under any key of GATEWAY_ENCRYPTION_KEY: store it again.", { param: "admin_key" }));
    const baseUrl = settings.baseUrl ?? DEFAULT_REPORT_BASE_URLS[settings.provider];
    const checked = await this.deps.checkCustomHost(baseUrl, "base_url");
    if (!checked.ok) return fail(new GatewayError("upstream_unreachable", `The ${settings.provider} reports' base URL is refused: ${checked.error.message}`));
    let provider: ProviderRow[];
    try {
      provider = await readProviderReport(
        { provider: settings.provider, adminKey, baseUrl, projectId: settings.projectId, apiKeyId: settings.apiKeyId, providerWorkspaceId: settings.providerWorkspaceId },
        startMs,
        endMs,
        this.fetchReport(settings.provider),
      );
    } catch (error) {
      return fail(new GatewayError("upstream_error", `Could not read ${settings.provider}'s cost and usage reports: ${error instanceof Error ? error.message : String(error)}`));
    }
    const gateway = await this.gatewayRows(settings.workspaceId, virtualKey.id, startMs, endMs);
    const rows = compared(virtualKey.id, gateway, provider, settings, isoNow(this.now()));
    await this.deps.store.reconciliation.putRows(settings.workspaceId, rows);
    for (const row of rows) {
      if (!row.drifted) continue;
      this.deps.emit({
        type: "spend.drift",
        workspaceId: settings.workspaceId,
        dedupKey: `drift:${virtualKey.id}:${row.date}:${row.model}`,
        data: { virtual_key: virtualKey.slug, virtual_key_id: virtualKey.id, provider: settings.provider, ...rowView(row), drift_threshold_usd: settings.driftThresholdUsd, drift_threshold_ratio: settings.driftThresholdRatio },
      });
    }
    return ok({ rows });
  }

  /** Starts the daily run on this replica: each key is taken once a UTC day, by one replica (a compare-and-set in the store). */
  startDaily(): void {
    if (this.timer) return;
    const tick = () => {
      this.running ??= this.daily().finally(() => (this.running = null));
    };
    this.timer = setInterval(tick, DAILY_CHECK_MS);
    (this.timer as { unref?: () => void }).unref?.();
    setTimeout(tick, 5_000).unref?.();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One pass of the daily run: the last `DAILY_DAYS` whole days of every key not yet taken today. Never throws. */
  async daily(): Promise<void> {
    const today = new Date(this.now()).toISOString().slice(0, 10);
    const end = Date.parse(`${today}T00:00:00.000Z`);
    try {
      for (const settings of await this.deps.store.reconciliation.listAll()) {
        if (!(await this.deps.store.reconciliation.claimDaily(settings.virtualKeyId, today))) continue;
        const virtualKey = await this.deps.store.virtualKeys.getById(settings.workspaceId, settings.virtualKeyId);
        if (!virtualKey) continue;
        const result = await this.reconcile(settings, virtualKey, end - DAILY_DAYS * DAY_MS, end);
        if (!result.ok) this.report(`[gateway] reconciliation of virtual key ${virtualKey.slug}: ${result.error.message}`);
      }
    } catch (error) {
      this.report(`[gateway] reconciliation: the daily run failed (${error instanceof Error ? error.message : String(error)})`);
    }
  }

  /** The key's logs summed per UTC day and compared model. */
  private async gatewayRows(workspaceId: string, virtualKeyId: string, startMs: number, endMs: number): Promise<Map<string, GatewaySide>> {
    const rows = new Map<string, GatewaySide>();
    for (let day = startMs; day < endMs; day += DAY_MS) {
      const date = new Date(day).toISOString().slice(0, 10);
      const groups = await this.deps.store.analytics.aggregate(
        { workspaceId, virtualKeyId, from: new Date(day).toISOString(), to: new Date(day + DAY_MS).toISOString() },
        { kind: "group", by: "model" },
      );
      for (const [model, aggregate] of groups) {
        const key = `${date}\u0000${comparedModel(model)}`;
        const side = rows.get(key) ?? { date, model: comparedModel(model), costUsd: 0, inputTokens: 0, outputTokens: 0, requests: 0 };
        side.costUsd += aggregate.costUsd;
        side.inputTokens += aggregate.promptTokens;
        side.outputTokens += aggregate.completionTokens;
        side.requests += aggregate.requests;
        rows.set(key, side);
      }
    }
    return rows;
  }

  private fetchReport(provider: string): FetchReport {
    return async (url, headers) => {
      const response = await this.deps.fetch(url, { method: "GET", headers: { accept: "application/json", ...headers }, redirect: "manual", signal: AbortSignal.timeout(REPORT_TIMEOUT_MS) });
      const path = new URL(url).pathname;
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new Error(`${provider} answered ${response.status} to ${path}`);
      }
      try {
        return await response.json();
      } catch {
        throw new Error(`${provider} answered ${path} with a body that is not JSON`);
      }
    };
  }
}

interface GatewaySide {
  date: string;
  model: string;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  requests: number;
}

/** Gateway and provider rows side by side, per day and model, with the drift and whether it passes both thresholds. */
export function compared(virtualKeyId: string, gateway: Map<string, GatewaySide>, provider: readonly ProviderRow[], thresholds: { driftThresholdUsd: number; driftThresholdRatio: number }, checkedAt: string): ReconciliationRow[] {
  const keys = new Map<string, { date: string; model: string }>();
  for (const side of gateway.values()) keys.set(`${side.date}\u0000${side.model}`, side);
  const reported = new Map<string, ProviderRow>(provider.map((row) => [`${row.date}\u0000${row.model}`, row]));
  for (const [key, row] of reported) keys.set(key, row);
  const round = (value: number) => Math.round(value * 1e10) / 1e10;
  return [...keys.entries()]
    .map(([key, { date, model }]): ReconciliationRow => {
      const ours = gateway.get(key);
      const theirs = reported.get(key);
      const gatewayCost = round(ours?.costUsd ?? 0);
      const providerCost = theirs?.costUsd === null || theirs === undefined ? (theirs ? null : 0) : round(theirs.costUsd);
      const drift = providerCost === null ? null : round(providerCost - gatewayCost);
      const scale = Math.max(Math.abs(gatewayCost), Math.abs(providerCost ?? 0));
      const ratio = drift === null || scale === 0 ? null : Math.round((drift / scale) * 1e6) / 1e6;
      return {
        virtualKeyId,
        date,
        model,
        gatewayCostUsd: gatewayCost,
        gatewayInputTokens: ours?.inputTokens ?? 0,
        gatewayOutputTokens: ours?.outputTokens ?? 0,
        gatewayRequests: ours?.requests ?? 0,
        providerCostUsd: providerCost,
        providerInputTokens: theirs?.inputTokens ?? 0,
        providerOutputTokens: theirs?.outputTokens ?? 0,
        driftUsd: drift,
        driftRatio: ratio,
        drifted: drift !== null && ratio !== null && Math.abs(drift) >= thresholds.driftThresholdUsd && Math.abs(ratio) >= thresholds.driftThresholdRatio,
        checkedAt,
      };
    })
    .sort((a, b) => a.date.localeCompare(b.date) || a.model.localeCompare(b.model));
}

/** A row as the API and events show it. */
export function rowView(row: ReconciliationRow) {
  return {
    date: row.date,
    model: row.model,
    gateway_cost_usd: row.gatewayCostUsd,
    gateway_input_tokens: row.gatewayInputTokens,
    gateway_output_tokens: row.gatewayOutputTokens,
    gateway_requests: row.gatewayRequests,
    provider_cost_usd: row.providerCostUsd,
    provider_input_tokens: row.providerInputTokens,
    provider_output_tokens: row.providerOutputTokens,
    drift_usd: row.driftUsd,
    drift_ratio: row.driftRatio,
    drifted: row.drifted,
  };
}
