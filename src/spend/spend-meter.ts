import type { RequestBody } from "../operation/request-body.ts";
import type { Target } from "../operation/target.ts";
import type { BudgetRecord } from "../records/budget.ts";
import { uuidv4 } from "../lib/ids.ts";
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { ProxyResponse } from "../operation/proxy-response.ts";
import type { LogEntry } from "../logging/log-entry.ts";
import { toLogRecord } from "../logging/log-record-builder.ts";
import { budgetCounterId, budgetLabel, type BudgetIndex, type BudgetMatch } from "./budget-index.ts";
import { completionTokenBound, promptTokenBound, toUnits, toUsd, worstCaseUnits } from "./estimate.ts";
import type { FailoverCounters } from "./failover-counters.ts";
import { budgetAlertHeader, rateLimitHeaders, refusalError } from "./limit-headers.ts";
import type { MeteredKey, MeterPlan, SpendCounters, Usage } from "./meter-plan.ts";
import { PeriodCache, rollingRowKey, settleBucket, type PeriodBounds } from "./periods.ts";
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
  workspaceId: string;
  /** The end user: the body's `user`, else `x-gateway-metadata`'s `_user`; null when neither. */
  endUser: string | null;
  metadata: Readonly<Record<string, string>>;
  /** Where the settle hooks in: the request's log, once finished, carries what the call used. */
  onFinish(listener: (entry: LogEntry) => void): void;
}

/** An admitted metered request: headers for its answer. */
export interface Admission {
  headers: Readonly<Record<string, string>>;
}

/** A budget's settled spend crossing one of its alert thresholds (reported once per threshold and period). */
export interface ThresholdCrossing {
  budget: BudgetRecord;
  member: string | null;
  threshold: number;
  spentUsd: number;
  limitUsd: number;
  /** The period's start (ISO; for a rolling window, its start now) and end (null: none). */
  periodStart: string | null;
  periodEnd: string | null;
  /** Names the period the crossing is once in: the period's key, or for a rolling window the window-long span it fell in. */
  periodKey: string;
}

export interface SpendMeterOptions {
  counters: FailoverCounters;
  flusher: SpendFlusher;
  /** The workspace's budgets, from the in-memory cache the store's writers invalidate (at once when cached). */
  budgets(workspaceId: string): BudgetIndex | Promise<BudgetIndex>;
  /** `GATEWAY_SPEND_DEFAULT_MAX_TOKENS`: the completion bound of a request that sets none. */
  defaultMaxTokens: number;
  /** How long a reservation may stay unsettled before the counters drop it (a replica died). */
  reservationTtlMs: number;
  /** Called off the response when a settle crosses a budget's alert threshold (webhooks). Must not throw. */
  onThresholdCrossed?(crossing: ThresholdCrossing): void;
  now?: () => number;
  warn?: (line: string) => void;
}

/** What a budget's use reads as, for its views. */
export interface BudgetUse {
  spentUsd: number;
  /** Null for a budget without a USD limit. */
  remainingUsd: number | null;
  periodStart: string | null;
  periodEnd: string | null;
  /** Spend at the period's end at the current rate (see `forecastUnits`); null for period none. */
  forecastUsd: number | null;
}

/** The spend fields of a key's view (a key's own budget). */
export interface SpendStatus {
  spent_usd: number;
  remaining_usd: number;
  period_resets_at: string | null;
}

/** The answer for a request no budget holds. */
const NOT_METERED: Result<Admission | null, GatewayError> = ok(null);

/** The shortest elapsed part of a period a forecast extrapolates from. */
const MIN_FORECAST_ELAPSED_MS = 60_000;

/**
 * Budgets and rate limits, of every scope. `admit` runs before the call: it finds the budgets
 * the request falls in (from the workspace's budget index, in memory), reserves the request's
 * worst-case cost on each and counts the request in each rate window, or refuses (412 budget,
 * 429 rate, 503 Redis down under the closed policy). When the request's log finishes it
 * settles: the reservation is released and the cost the log records (`toLogRecord`, the same
 * pricing) is added, with the tokens, off the response; crossing an alert threshold is reported.
 */
export class SpendMeter {
  private readonly now: () => number;
  private readonly warn: (line: string) => void;
  private readonly periods = new PeriodCache();

  constructor(private readonly options: SpendMeterOptions) {
    this.now = options.now ?? Date.now;
    this.warn = options.warn ?? ((line) => console.error(line));
  }

  /** Null when no budget holds the request: then nothing else is done for it. */
  admit(request: MeterRequest): Result<Admission | null, GatewayError> | Promise<Result<Admission | null, GatewayError>> {
    const index = this.options.budgets(request.workspaceId);
    // A workspace without budgets, its index cached: answered without a promise.
    if (!(index instanceof Promise)) return index.size === 0 ? NOT_METERED : this.admitWith(index, request);
    return index.then((loaded) => (loaded.size === 0 ? NOT_METERED : this.admitWith(loaded, request)));
  }

  private async admitWith(index: BudgetIndex, request: MeterRequest): Promise<Result<Admission | null, GatewayError>> {
    const matches = index.match({
      apiKeyId: request.gatewayKeyId,
      candidates: request.candidates.map(({ target }) => ({ virtualKeyId: target.virtualKeyId, model: target.model })),
      user: request.endUser,
      metadata: request.metadata,
    });
    if (matches.length === 0) return ok(null);
    const nowMs = this.now();
    const plan = this.planFor(request, matches, nowMs);
    const reserved = await this.options.counters.reserve(plan);
    if (!("counters" in reserved)) return fail(reserved);
    const { counters, outcome } = reserved;
    if (outcome.refusal) return fail(refusalError(outcome.refusal, plan.keys, outcome.counts, nowMs));
    // A plan of request counts alone is complete once admitted: there is nothing to settle.
    if (needsSettling(plan)) request.onFinish((entry) => void this.settle(counters, plan, matches, entry));
    const headers = rateLimitHeaders(plan.keys, outcome.counts, nowMs);
    const alert = budgetAlertHeader(plan.keys, outcome.counts);
    if (alert) headers["x-gateway-budget-alert"] = alert;
    return ok({ headers });
  }

  /** A budget's use now (of one member, for a budget held per value). */
  async use(budget: BudgetRecord, member: string | null): Promise<BudgetUse> {
    const nowMs = this.now();
    const bounds = this.periods.bounds(budget.period, nowMs);
    const units = await this.options.counters.spent("budget", budgetCounterId(budget.id, member), bounds.start, bounds.rolling?.cutMs);
    const spentUsd = toUsd(units);
    const limitUsd = budget.limitUsd;
    return {
      spentUsd,
      remainingUsd: limitUsd === null ? null : Math.max(0, Math.round((limitUsd - spentUsd) * 1e10) / 1e10),
      periodStart: bounds.rolling ? new Date(nowMs - bounds.rolling.windowMs).toISOString() : bounds.start === "none" ? null : bounds.start,
      periodEnd: bounds.resetsAt?.toISOString() ?? null,
      forecastUsd: forecastUsd(units, bounds, nowMs),
    };
  }

  /** Spend of a key's own budget in its current period, for the key's views; no fields for a key without a USD budget. */
  async keyStatus(workspaceId: string, kind: "api_key" | "virtual_key", id: string): Promise<SpendStatus | Record<string, never>> {
    const budget = (await this.options.budgets(workspaceId)).keyBudget(kind, id);
    if (!budget || budget.limitUsd === null) return {};
    const use = await this.use(budget, null);
    return { spent_usd: use.spentUsd, remaining_usd: use.remainingUsd ?? 0, period_resets_at: use.periodEnd };
  }

  private planFor(request: MeterRequest, matches: readonly BudgetMatch[], nowMs: number): MeterPlan {
    const promptTokens = promptTokenBound(request.body);
    const completionTokens = completionTokenBound(request.body, this.options.defaultMaxTokens);
    const worstCase = (candidates: readonly MeteredCandidate[]): number =>
      Math.max(0, ...candidates.map(({ target }) => worstCaseUnits(target.provider.id, target.model, promptTokens, completionTokens)));
    const all = worstCase(request.candidates);
    const keys = matches.map((match): MeteredKey => {
      const served = match.servedBy;
      const reserveUnits = served === null ? all : worstCase(request.candidates.filter(({ target }) => servedThrough(served, target.virtualKeyId, target.model)));
      return this.meteredKey(match, reserveUnits, nowMs);
    });
    return { reservationId: uuidv4(), nowMs, expiresAtMs: nowMs + this.options.reservationTtlMs, keys };
  }

  private meteredKey(match: BudgetMatch, reserveUnits: number, nowMs: number): MeteredKey {
    const { budget } = match;
    const bounds = budget.limitUsd === null ? null : this.periods.bounds(budget.period, nowMs);
    return {
      kind: "budget",
      id: budgetCounterId(budget.id, match.member),
      label: budgetLabel(budget, match.member),
      budget:
        bounds && budget.limitUsd !== null
          ? {
              limitUnits: toUnits(budget.limitUsd),
              periodStart: bounds.start,
              resetsAt: bounds.resetsAt,
              rolling: bounds.rolling,
              alertThresholds: budget.alertThresholds,
              reserveUnits,
            }
          : null,
      windows: budget.rateLimit ? windowSlots(budget.rateLimit, nowMs) : [],
    };
  }

  /** Never throws: the log's cost and tokens go to the counters and, for budgets, to the store. */
  private async settle(counters: SpendCounters, plan: MeterPlan, matches: readonly BudgetMatch[], entry: LogEntry): Promise<void> {
    try {
      const record = toLogRecord(entry);
      const used: Usage = { units: toUnits(record.costUsd ?? 0), tokens: Math.max(0, record.totalTokens) };
      const none: Usage = { units: 0, tokens: 0 };
      // Only the candidate that answered used anything; the others' reservations are released.
      const usage = matches.map(({ servedBy }) => (servedBy === null || servedThrough(servedBy, entry.virtualKeyId, entry.model) ? used : none));
      const settledAt = this.now();
      for (const [index, key] of plan.keys.entries()) {
        const units = usage[index]!.units;
        if (!key.budget || units <= 0) continue;
        const period = key.budget.rolling ? rollingRowKey(settleBucket(key.budget.rolling, settledAt).bucketStartMs) : key.budget.periodStart;
        this.options.flusher.add(key.kind, key.id, period, toUsd(units));
      }
      const outcome = await this.options.counters.settle(counters, plan, usage);
      for (const [index, key] of plan.keys.entries()) {
        const settled = outcome[index];
        if (!settled || !key.budget) continue;
        for (const threshold of key.budget.alertThresholds) {
          const line = threshold * key.budget.limitUnits;
          if (!(settled.beforeUnits < line && settled.afterUnits >= line)) continue;
          this.warn(`[gateway] budget alert: ${key.label} has spent $${toUsd(settled.afterUnits)} of its $${toUsd(key.budget.limitUnits)} limit (alert threshold ${threshold})`);
          this.options.onThresholdCrossed?.(crossingOf(matches[index]!, key, threshold, settled.afterUnits, settledAt));
        }
      }
    } catch (error) {
      this.warn(`[gateway] spend: could not settle a request (${error instanceof Error ? error.message : String(error)})`);
    }
  }
}

function servedThrough(servedBy: NonNullable<BudgetMatch["servedBy"]>, virtualKeyId: string | null, model: string | null): boolean {
  return "virtualKeyId" in servedBy ? servedBy.virtualKeyId === virtualKeyId : servedBy.model === model;
}

function crossingOf(match: BudgetMatch, key: MeteredKey, threshold: number, afterUnits: number, nowMs: number): ThresholdCrossing {
  const budget = key.budget!;
  const rolling = budget.rolling;
  return {
    budget: match.budget,
    member: match.member,
    threshold,
    spentUsd: toUsd(afterUnits),
    limitUsd: toUsd(budget.limitUnits),
    periodStart: rolling ? new Date(nowMs - rolling.windowMs).toISOString() : budget.periodStart === "none" ? null : budget.periodStart,
    periodEnd: budget.resetsAt?.toISOString() ?? null,
    periodKey: rolling ? `w${rolling.windowMs}:${Math.floor(nowMs / rolling.windowMs)}` : budget.periodStart,
  };
}

/**
 * Spend at the period's end at the current rate: a calendar period's spend so far scaled to
 * its whole length (from at least a minute elapsed); a rolling window's total is already its
 * rate over one window, so it is its own forecast; none has no end (null).
 */
function forecastUsd(units: number, bounds: PeriodBounds, nowMs: number): number | null {
  if (bounds.rolling) return toUsd(units);
  if (bounds.startMs === null || !bounds.resetsAt) return null;
  const length = bounds.resetsAt.getTime() - bounds.startMs;
  const elapsed = Math.max(MIN_FORECAST_ELAPSED_MS, nowMs - bounds.startMs);
  return Math.round(toUsd(units) * (length / Math.min(elapsed, length)) * 1e6) / 1e6;
}

/**
 * Whether a request's use must be settled after it: a budget (the reservation is exchanged for
 * the cost), or a token window (tokens are counted once known). Request counts are final at admission.
 */
function needsSettling(plan: MeterPlan): boolean {
  return plan.keys.some((key) => key.budget !== null || key.windows.some((slot) => slot.tokenLimit !== null && slot.tokenLimit !== undefined));
}

/** The answer of an admitted metered request with its rate-limit and budget-alert headers; an unmetered one as it is. */
export function responseWithLimitHeaders(response: ProxyResponse, admission: Admission | null): ProxyResponse {
  if (!hasHeaders(admission)) return response;
  return { ...response, headers: { ...admission.headers, ...response.headers } };
}

/** The error answering an admitted metered request, with its limit headers (the error's own headers, an upstream's `Retry-After`, win). */
export function errorWithLimitHeaders(error: GatewayError, admission: Admission | null): GatewayError {
  if (!hasHeaders(admission)) return error;
  return new GatewayError(error.code, error.message, {
    param: error.param,
    status: error.status,
    upstream: error.upstream,
    details: error.details,
    headers: { ...admission.headers, ...error.headers },
  });
}

function hasHeaders(admission: Admission | null): admission is Admission {
  if (!admission) return false;
  for (const _ in admission.headers) return true;
  return false;
}
