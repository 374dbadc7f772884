import { GATEWAY_ACTOR_ID } from "../control-plane/auth-context.ts";
import type { ControlPlaneCache } from "../control-plane/cache.ts";
import { experimentView } from "../control-plane/experiment-view.ts";
import { isoNow, uuidv7 } from "../lib/ids.ts";
import type { ExperimentRecord, ExperimentStopReason } from "../records/experiment.ts";
import type { Store } from "../store/open-store.ts";
import type { WebhookEvent } from "../webhooks/webhook-events.ts";
import { experimentStoppedEvent } from "../webhooks/experiment-events.ts";
import { crossesGuard, type Comparison } from "./experiment-statistics.ts";
import { comparisonsOf, totalsInOrder } from "./experiment-results.ts";

export interface ExperimentGuardsOptions {
  store: Pick<Store, "experiments" | "experimentOutcomes" | "transaction">;
  controlPlane: ControlPlaneCache;
  emit(event: WebhookEvent): void;
  /** Every running experiment is checked this often, whatever arrives. */
  intervalMs: number;
  /** An experiment whose logs arrive is checked at most this often. */
  minIntervalMs: number;
  now?: () => number;
  report?: (line: string) => void;
}

/** What an experiment's check found: the first guard a variant crossed, with its comparison. */
export interface GuardCrossing {
  variant: string;
  comparison: Comparison;
  tolerance: number;
}

/**
 * The first guard a variant crossed (in the order of guards, then variants), or null: read from
 * the same totals and always-valid comparisons as the results, so a guard acts exactly when the
 * results show it crossed.
 */
export function firstCrossing(experiment: ExperimentRecord, comparisons: ReturnType<typeof comparisonsOf>): GuardCrossing | null {
  for (const guard of experiment.guards) {
    for (const { variant, comparisons: metrics } of comparisons) {
      const comparison = metrics.find((candidate) => candidate.metric === guard.metric);
      if (comparison && crossesGuard(comparison, guard.tolerance)) return { variant, comparison, tolerance: guard.tolerance };
    }
  }
  return null;
}

/** The stop reason of a crossing, in the API's terms and a sentence. */
export function guardStopReason(experiment: ExperimentRecord, crossing: GuardCrossing, at: string): ExperimentStopReason {
  const { comparison, variant, tolerance } = crossing;
  const level = `${Math.round((1 - experiment.alpha) * 1000) / 10} %`;
  const figure = (value: number | null) => (value === null ? "?" : String(Math.round(value * 1e6) / 1e6));
  const measured =
    comparison.metric === "latency"
      ? `the geometric mean latency of "${variant}" is ${figure(comparison.value)} times the control's (always-valid ${level} interval ${figure(comparison.low)} to ${figure(comparison.high)}), past the tolerated ${figure(1 + tolerance)}`
      : comparison.metric === "feedback_score"
        ? `the feedback score of "${variant}" differs from the control's by ${figure(comparison.value)} (always-valid ${level} interval ${figure(comparison.low)} to ${figure(comparison.high)}), below the tolerated -${figure(tolerance)}`
        : `the ${comparison.metric.replace("_", " ")} of "${variant}" differs from the control's by ${figure(comparison.value)} (always-valid ${level} interval ${figure(comparison.low)} to ${figure(comparison.high)}), above the tolerated ${figure(tolerance)}`;
  return {
    kind: "guard",
    at,
    metric: comparison.metric,
    variant,
    detail: `Guard on ${comparison.metric}: ${measured}. Every request now goes to the control.`,
    difference: comparison.value,
    low: comparison.low,
    high: comparison.high,
    tolerance,
  };
}

/**
 * Watches running experiments' guards, off the request path: each running experiment every
 * `intervalMs`, and an experiment whose logs this replica stored at most every `minIntervalMs`
 * (`logged`). A crossed guard stops the experiment (only while it runs, so one replica stops it
 * once), records the stop as an audit event by the gateway itself, tells every replica (the
 * control-plane cache's forget travels through Redis) and sends `experiment.stopped`. Never throws.
 */
export class ExperimentGuards {
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly watched = new Map<string, { workspaceId: string; checking: Promise<void> | null; again: boolean; lastAt: number; later: ReturnType<typeof setTimeout> | null }>();
  private readonly now: () => number;
  private readonly report: (line: string) => void;
  private closed = false;

  constructor(private readonly options: ExperimentGuardsOptions) {
    this.now = options.now ?? Date.now;
    this.report = options.report ?? ((line) => console.error(line));
  }

  start(): void {
    this.timer = setInterval(() => void this.checkRunning(), this.options.intervalMs);
    this.timer.unref?.();
  }

  /** Told of each stored batch of logs: the experiments they belong to are checked soon. */
  logged(entries: readonly { workspaceId: string; experimentId: string | null }[]): void {
    const seen = new Set<string>();
    for (const entry of entries) {
      if (entry.experimentId === null || seen.has(entry.experimentId)) continue;
      seen.add(entry.experimentId);
      this.soon(entry.workspaceId, entry.experimentId);
    }
  }

  /** Checks every running experiment now (the timer's pass); resolves once done. */
  async checkRunning(): Promise<void> {
    const now = this.now();
    for (const [id, state] of this.watched) {
      if (!state.checking && !state.later && state.lastAt + this.options.minIntervalMs <= now) this.watched.delete(id);
    }
    try {
      const running = await this.options.store.experiments.running();
      await Promise.all(running.filter((experiment) => experiment.guards.length > 0).map((experiment) => this.check(experiment.workspaceId, experiment.id)));
    } catch (error) {
      this.report(`[gateway] experiment guards: could not read running experiments (${messageOf(error)})`);
    }
  }

  /** Resolves once every check under way has ended (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.all([...this.watched.values()].map((state) => state.checking));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    for (const state of this.watched.values()) if (state.later) clearTimeout(state.later);
    await this.settled();
  }

  private soon(workspaceId: string, experimentId: string): void {
    if (this.closed) return;
    const state = this.watched.get(experimentId) ?? { workspaceId, checking: null, again: false, lastAt: 0, later: null };
    this.watched.set(experimentId, state);
    if (state.checking || state.later) {
      state.again = true;
      return;
    }
    const wait = state.lastAt + this.options.minIntervalMs - this.now();
    if (wait <= 0) {
      void this.check(workspaceId, experimentId);
      return;
    }
    state.later = setTimeout(() => {
      state.later = null;
      void this.check(workspaceId, experimentId);
    }, wait);
    state.later.unref?.();
  }

  /** One check of one experiment; a check under way is joined, not repeated. */
  private check(workspaceId: string, experimentId: string): Promise<void> {
    const state = this.watched.get(experimentId) ?? { workspaceId, checking: null, again: false, lastAt: 0, later: null };
    this.watched.set(experimentId, state);
    if (state.checking) return state.checking;
    state.again = false;
    state.lastAt = this.now();
    state.checking = this.evaluate(workspaceId, experimentId)
      .catch((error: unknown) => this.report(`[gateway] experiment guards: could not check experiment ${experimentId} (${messageOf(error)})`))
      .finally(() => {
        state.checking = null;
        // The state stays (its last check's time spaces the next); the timer's pass forgets idle ones.
        if (state.again) this.soon(workspaceId, experimentId);
      });
    return state.checking;
  }

  private async evaluate(workspaceId: string, experimentId: string): Promise<void> {
    const { store } = this.options;
    const experiment = await store.experiments.get(workspaceId, experimentId);
    if (!experiment || experiment.status !== "running" || experiment.guards.length === 0) return;
    const totals = await store.experimentOutcomes.variantTotals(workspaceId, experimentId, experiment.startedAt);
    const crossing = firstCrossing(experiment, comparisonsOf(experiment, totalsInOrder(experiment, totals)));
    if (crossing) await this.stop(experiment, crossing);
  }

  private async stop(experiment: ExperimentRecord, crossing: GuardCrossing): Promise<void> {
    const at = isoNow(this.now());
    const stopReason = guardStopReason(experiment, crossing, at);
    const stopped = await this.options.store.transaction(async (tx) => {
      const after = await tx.experiments.update(experiment.workspaceId, experiment.id, { status: "stopped", stoppedAt: at, stopReason, updatedBy: GATEWAY_ACTOR_ID, at }, ["running"]);
      if (!after) return null;
      await tx.audit.insert({
        id: uuidv7(this.now()),
        organisationId: experiment.organisationId,
        workspaceId: experiment.workspaceId,
        actorKeyId: GATEWAY_ACTOR_ID,
        action: "experiment.stopped",
        resourceType: "experiment",
        resourceId: experiment.id,
        resourceSlug: null,
        before: experimentView(experiment),
        after: experimentView(after),
        requestId: null,
        createdAt: at,
      });
      return after;
    });
    // Another replica, or an admin, stopped it first.
    if (!stopped) return;
    this.options.controlPlane.forget("experiment", experiment.workspaceId, experiment.id);
    this.options.emit(experimentStoppedEvent(stopped));
    this.report(`[gateway] experiment ${experiment.id} stopped: ${stopReason.detail}`);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
