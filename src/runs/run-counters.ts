import type { RunRule, VelocityScope } from "../records/run-limits.ts";

/** A run: its workspace and trace id. */
export interface RunId {
  workspaceId: string;
  traceId: string;
}

/** One velocity rule as counted: its counter's key, its cap in units, and the oldest bucket it counts now. */
export interface VelocityCheck {
  scope: VelocityScope;
  key: string;
  capUnits: number;
  cutMs: number;
}

/** What admitting one request (or tool call) checks and counts. Figures in ms and units of 1e-10 USD. */
export interface RunPlan {
  nowMs: number;
  /** Null when the request has no run (no `x-gateway-trace-id`): only key and end-user velocity apply. */
  run: RunId | null;
  kind: "request" | "tool";
  /** The request's fingerprint when the run has a repeat limit. */
  fingerprint: string | null;
  limits: { requests: number | null; tools: number | null; costUnits: number | null; durationMs: number | null; repeats: number | null };
  velocity: readonly VelocityCheck[];
  /** How long the run's counts are kept after its last request. */
  ttlMs: number;
}

/** Why a run stopped: the rule, the figure that tripped it and its limit (ms, units or counts), whose figure, and when. */
export interface RunHaltState {
  rule: RunRule;
  value: number;
  limit: number;
  scope: VelocityScope;
  atMs: number;
}

/** Admitted; or refused by a halt set before (`fresh` false) or by this request (`fresh` true). */
export type RunVerdict = { admitted: true } | { halt: RunHaltState; fresh: boolean };

/** A run's counts as kept. */
export interface RunState {
  requests: number;
  tools: number;
  costUnits: number;
  startMs: number | null;
  halt: RunHaltState | null;
}

/** Where runs are counted: in process, or in Redis shared by replicas. Both reject when the place behind them fails. */
export interface RunCounters {
  admit(plan: RunPlan): Promise<RunVerdict>;
  /** Adds a settled cost to the run and to the velocity counters' current buckets. */
  settle(run: RunId | null, velocityKeys: readonly string[], units: number, nowMs: number): Promise<void>;
  state(run: RunId): Promise<RunState | null>;
  /** Drops the run's halt and counts (and its repeats and velocity); its state before, null when none was kept. */
  resume(run: RunId): Promise<RunState | null>;
}

/** Velocity is counted in buckets of ten seconds: a minute's rule counts the last 60 to 70 seconds of spend. */
export const VELOCITY_BUCKET_MS = 10_000;
export const VELOCITY_WINDOW_MS = 60_000;
/** How long a velocity bucket is kept. */
export const VELOCITY_TTL_MS = VELOCITY_WINDOW_MS + 2 * VELOCITY_BUCKET_MS;

export function velocityBucket(nowMs: number): number {
  return nowMs - (nowMs % VELOCITY_BUCKET_MS);
}

/** The oldest bucket a minute's rule counts at `nowMs`. */
export function velocityCut(nowMs: number): number {
  return velocityBucket(nowMs) - VELOCITY_WINDOW_MS;
}

export function runKey(run: RunId): string {
  return `gw:run:${run.workspaceId}:${run.traceId}`;
}

export function repeatsKey(run: RunId): string {
  return `${runKey(run)}:rep`;
}

/** A run's own velocity counter. */
export function runVelocityKey(run: RunId): string {
  return `gw:vel:run:${run.workspaceId}:${run.traceId}`;
}

interface MemoryRun {
  state: RunState;
  repeats: Map<string, number>;
  dropAtMs: number;
}

const SWEEP_INTERVAL_MS = 60_000;

/**
 * Runs counted in this process: the default without Redis, and the fallback while it is down.
 * The same rules as the Redis scripts (`shared-state/run-scripts.ts`); each call runs without
 * awaiting, so it is atomic within the process.
 */
export class MemoryRunCounters implements RunCounters {
  private readonly runs = new Map<string, MemoryRun>();
  private readonly velocity = new Map<string, Map<number, number>>();
  private readonly sweeper: ReturnType<typeof setInterval>;

  constructor() {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    (this.sweeper as { unref?: () => void }).unref?.();
  }

  admit(plan: RunPlan): Promise<RunVerdict> {
    const kept = plan.run ? this.runs.get(runKey(plan.run)) : undefined;
    if (kept?.state.halt) return Promise.resolve({ halt: kept.state.halt, fresh: false });
    const state = kept?.state ?? { requests: 0, tools: 0, costUnits: 0, startMs: null, halt: null };
    const start = state.startMs ?? plan.nowMs;
    const { limits } = plan;
    let trip: Omit<RunHaltState, "atMs"> | null = null;
    if (plan.run) {
      if (limits.durationMs !== null && plan.nowMs - start > limits.durationMs) trip = { rule: "max_duration_seconds", value: plan.nowMs - start, limit: limits.durationMs, scope: "run" };
      else if (plan.kind === "request" && limits.requests !== null && state.requests + 1 > limits.requests) trip = { rule: "max_requests", value: state.requests + 1, limit: limits.requests, scope: "run" };
      else if (plan.kind === "tool" && limits.tools !== null && state.tools + 1 > limits.tools) trip = { rule: "max_tool_calls", value: state.tools + 1, limit: limits.tools, scope: "run" };
      else if (limits.costUnits !== null && state.costUnits >= limits.costUnits) trip = { rule: "max_cost_usd", value: state.costUnits, limit: limits.costUnits, scope: "run" };
    }
    const repeats = (plan.run && plan.fingerprint !== null ? (kept?.repeats.get(plan.fingerprint) ?? 0) : 0) + 1;
    if (!trip && plan.run && plan.fingerprint !== null && limits.repeats !== null && repeats > limits.repeats) trip = { rule: "repeat_limit", value: repeats, limit: limits.repeats, scope: "run" };
    for (const check of plan.velocity) {
      const spent = this.bucketSum(check.key, check.cutMs);
      if (!trip && spent >= check.capUnits) trip = { rule: "max_cost_usd_per_minute", value: spent, limit: check.capUnits, scope: check.scope };
    }
    if (trip) {
      const halt: RunHaltState = { ...trip, atMs: plan.nowMs };
      if (plan.run) this.keep(plan.run, plan, { ...state, halt }, kept?.repeats);
      return Promise.resolve({ halt, fresh: true });
    }
    if (plan.run) {
      const next = { ...state, startMs: start, requests: state.requests + (plan.kind === "request" ? 1 : 0), tools: state.tools + (plan.kind === "tool" ? 1 : 0) };
      const counted = this.keep(plan.run, plan, next, kept?.repeats);
      if (plan.fingerprint !== null) counted.repeats.set(plan.fingerprint, repeats);
    }
    return Promise.resolve({ admitted: true });
  }

  settle(run: RunId | null, velocityKeys: readonly string[], units: number, nowMs: number): Promise<void> {
    if (units <= 0) return Promise.resolve();
    const kept = run ? this.runs.get(runKey(run)) : undefined;
    if (kept) kept.state = { ...kept.state, costUnits: kept.state.costUnits + units };
    const bucket = velocityBucket(nowMs);
    for (const key of velocityKeys) {
      let buckets = this.velocity.get(key);
      if (!buckets) this.velocity.set(key, (buckets = new Map()));
      buckets.set(bucket, (buckets.get(bucket) ?? 0) + units);
    }
    return Promise.resolve();
  }

  state(run: RunId): Promise<RunState | null> {
    return Promise.resolve(this.runs.get(runKey(run))?.state ?? null);
  }

  resume(run: RunId): Promise<RunState | null> {
    const before = this.runs.get(runKey(run))?.state ?? null;
    this.runs.delete(runKey(run));
    this.velocity.delete(runVelocityKey(run));
    return Promise.resolve(before);
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private keep(run: RunId, plan: RunPlan, state: RunState, repeats: Map<string, number> | undefined): MemoryRun {
    const kept: MemoryRun = { state, repeats: repeats ?? new Map(), dropAtMs: plan.nowMs + plan.ttlMs };
    this.runs.set(runKey(run), kept);
    return kept;
  }

  private bucketSum(key: string, cutMs: number): number {
    const buckets = this.velocity.get(key);
    if (!buckets) return 0;
    let total = 0;
    for (const [bucket, units] of buckets) {
      if (bucket < cutMs) buckets.delete(bucket);
      else total += units;
    }
    return total;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, run] of this.runs) if (run.dropAtMs <= now) this.runs.delete(key);
    for (const [key, buckets] of this.velocity) {
      for (const bucket of buckets.keys()) if (bucket + VELOCITY_TTL_MS <= now) buckets.delete(bucket);
      if (buckets.size === 0) this.velocity.delete(key);
    }
  }
}
