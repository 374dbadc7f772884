import type { KeyBudget, KeyLimits } from "../records/control-plane.ts";
import type { RequestBody } from "../operation/request-body.ts";
import type { Target } from "../operation/target.ts";
import { uuidv4 } from "../lib/ids.ts";
import { fail, ok, type GatewayError, type Result } from "../errors.ts";
import type { LogEntry } from "../logging/log-entry.ts";
import { toLogRecord } from "../logging/log-record-builder.ts";
import type { SpendKeyKind } from "../store/spend-repository.ts";
import { completionTokenBound, promptTokenBound, toUnits, toUsd, worstCaseUnits } from "./estimate.ts";
import type { FailoverCounters } from "./failover-counters.ts";
import type { VirtualKeyLimits } from "./key-limits.ts";
import { budgetAlertHeader, rateLimitHeaders, refusalError } from "./limit-headers.ts";
import type { MeteredKey, MeterPlan, SpendCounters, Usage } from "./meter-plan.ts";
import { periodBounds } from "./periods.ts";
import type { SpendFlusher } from "./spend-flusher.ts";
import { windowSlots } from "./windows.ts";

/** What the meter reads of one of the routing loop's candidates: where it may be served, at what price. */
export interface MeteredCandidate {
  target: Target;
}

export interface MeterRequest {
  candidates: readonly MeteredCandidate[];
  /** The body as sent upstream (after config overrides): its size and token caps bound the cost. */
  body: RequestBody;
  gatewayKeyId: string | null;
  gatewayKeyLimits: KeyLimits | null | undefined;
  workspaceId: string;
  /** Where the settle hooks in: the request's log, once finished, carries what the call used. */
  onFinish(listener: (entry: LogEntry) => void): void;
}

/** An admitted metered request: headers for its answer. */
export interface Admission {
  headers: Readonly<Record<string, string>>;
}

export interface SpendMeterOptions {
  counters: FailoverCounters;
  flusher: SpendFlusher;
  virtualKeyLimits(workspaceId: string, id: string): Promise<VirtualKeyLimits | null>;
  /** `GATEWAY_SPEND_DEFAULT_MAX_TOKENS`: the completion bound of a request that sets none. */
  defaultMaxTokens: number;
  /** How long a reservation may stay unsettled before the counters drop it (a replica died). */
  reservationTtlMs: number;
  now?: () => number;
  warn?: (line: string) => void;
}

/**
 * Budgets and rate limits of gateway keys and virtual keys. `admit` runs before the call:
 * it reserves the request's worst-case cost on every metered key and counts the request in
 * each rate window, or refuses (412 budget, 429 rate, 503 Redis down under the closed policy).
 * When the request's log finishes it settles: the reservation is released and the cost the
 * log records (`toLogRecord`, the same pricing) is added, with the tokens, off the response.
 */
export class SpendMeter {
  private readonly now: () => number;
  private readonly warn: (line: string) => void;

  constructor(private readonly options: SpendMeterOptions) {
    this.now = options.now ?? Date.now;
    this.warn = options.warn ?? ((line) => console.error(line));
  }

  /** Null when no key of the request is metered: then nothing else is done for it. */
  async admit(request: MeterRequest): Promise<Result<Admission | null, GatewayError>> {
    const hasVirtualKey = request.candidates.some((candidate) => candidate.target.virtualKeyId !== null);
    if (!request.gatewayKeyLimits && !hasVirtualKey) return ok(null);
    const nowMs = this.now();
    const plan = await this.planFor(request, nowMs);
    if (!plan) return ok(null);
    const reserved = await this.options.counters.reserve(plan);
    if (!("counters" in reserved)) return fail(reserved);
    const { counters, outcome } = reserved;
    if (outcome.refusal) return fail(refusalError(outcome.refusal, plan.keys, outcome.counts, nowMs));
    // A plan of request counts alone is complete once admitted: there is nothing to settle.
    if (needsSettling(plan)) request.onFinish((entry) => void this.settle(counters, plan, entry));
    const headers = rateLimitHeaders(plan.keys, outcome.counts, nowMs);
    const alert = budgetAlertHeader(plan.keys, outcome.counts);
    if (alert) headers["x-gateway-budget-alert"] = alert;
    return ok({ headers });
  }

  /** Spend of a key in its current period, for the key's views; no fields for a key without a budget. */
  async status(kind: SpendKeyKind, id: string, budget: KeyBudget | null): Promise<SpendStatus | Record<string, never>> {
    if (!budget) return {};
    const period = periodBounds(budget.period, new Date(this.now()));
    const spent = toUsd(await this.options.counters.spent(kind, id, period.start));
    return {
      spent_usd: spent,
      remaining_usd: Math.max(0, Math.round((budget.creditLimitUsd - spent) * 1e10) / 1e10),
      period_resets_at: period.resetsAt?.toISOString() ?? null,
    };
  }

  private async planFor(request: MeterRequest, nowMs: number): Promise<MeterPlan | null> {
    const now = new Date(nowMs);
    const promptTokens = promptTokenBound(request.body);
    const completionTokens = completionTokenBound(request.body, this.options.defaultMaxTokens);
    const worstCase = (candidates: readonly MeteredCandidate[]): number =>
      Math.max(0, ...candidates.map(({ target }) => worstCaseUnits(target.provider.id, target.model, promptTokens, completionTokens)));
    const keys: MeteredKey[] = [];
    if (request.gatewayKeyLimits && request.gatewayKeyId) {
      keys.push(meteredKey("api_key", request.gatewayKeyId, `gateway key ${request.gatewayKeyId}`, request.gatewayKeyLimits, worstCase(request.candidates), now));
    }
    const virtualKeyIds = new Set(request.candidates.flatMap(({ target }) => (target.virtualKeyId === null ? [] : [target.virtualKeyId])));
    for (const id of virtualKeyIds) {
      const found = await this.options.virtualKeyLimits(request.workspaceId, id);
      if (!found) continue;
      const served = request.candidates.filter(({ target }) => target.virtualKeyId === id);
      keys.push(meteredKey("virtual_key", id, `virtual key "${found.slug}"`, found.limits, worstCase(served), now));
    }
    if (keys.length === 0) return null;
    return { reservationId: uuidv4(), nowMs, expiresAtMs: nowMs + this.options.reservationTtlMs, keys };
  }

  /** Never throws: the log's cost and tokens go to the counters and, for budgets, to the store. */
  private async settle(counters: SpendCounters, plan: MeterPlan, entry: LogEntry): Promise<void> {
    try {
      const record = toLogRecord(entry);
      const used: Usage = { units: toUnits(record.costUsd ?? 0), tokens: Math.max(0, record.totalTokens) };
      const none: Usage = { units: 0, tokens: 0 };
      // Only the virtual key that answered used anything; the others' reservations are released.
      const usage = plan.keys.map((key) => (key.kind === "api_key" || key.id === entry.virtualKeyId ? used : none));
      for (const [index, key] of plan.keys.entries()) {
        if (key.budget && usage[index]!.units > 0) this.options.flusher.add(key.kind, key.id, key.budget.periodStart, toUsd(usage[index]!.units));
      }
      const outcome = await this.options.counters.settle(counters, plan, usage);
      for (const [index, key] of plan.keys.entries()) {
        const settled = outcome[index];
        const threshold = key.budget?.alertThreshold;
        if (!settled || !key.budget || threshold === null || threshold === undefined) continue;
        const line = threshold * key.budget.limitUnits;
        if (settled.beforeUnits < line && settled.afterUnits >= line) {
          this.warn(
            `[gateway] budget alert: ${key.label} has spent $${toUsd(settled.afterUnits)} of its $${toUsd(key.budget.limitUnits)} limit (alert threshold ${threshold})`,
          );
        }
      }
    } catch (error) {
      this.warn(`[gateway] spend: could not settle a request (${error instanceof Error ? error.message : String(error)})`);
    }
  }
}

/**
 * Whether a request's use must be settled after it: a budget (the reservation is exchanged for
 * the cost), or a token window (tokens are counted once known). Request counts are final at admission.
 */
function needsSettling(plan: MeterPlan): boolean {
  return plan.keys.some((key) => key.budget !== null || key.windows.some((slot) => slot.tokenLimit !== null && slot.tokenLimit !== undefined));
}

/** The spend fields of a key's view. */
export interface SpendStatus {
  spent_usd: number;
  remaining_usd: number;
  period_resets_at: string | null;
}

function meteredKey(kind: SpendKeyKind, id: string, label: string, limits: KeyLimits, reserveUnits: number, now: Date): MeteredKey {
  const budget = limits.budget;
  const period = budget ? periodBounds(budget.period, now) : null;
  return {
    kind,
    id,
    label,
    budget:
      budget && period
        ? { limitUnits: toUnits(budget.creditLimitUsd), periodStart: period.start, resetsAt: period.resetsAt, alertThreshold: budget.alertThreshold, reserveUnits }
        : null,
    windows: limits.rateLimit ? windowSlots(limits.rateLimit, now.getTime()) : [],
  };
}
