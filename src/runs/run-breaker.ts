import { createHash } from "node:crypto";
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { LogEntry } from "../logging/log-entry.ts";
import { toLogRecord } from "../logging/log-record-builder.ts";
import type { RunLimits, VelocityRule } from "../records/run-limits.ts";
import { toUnits, toUsd } from "../spend/estimate.ts";
import { requestFingerprint, toolCallFingerprint } from "./run-fingerprint.ts";
import { runVelocityKey, velocityCut, type RunCounters, type RunHaltState, type RunId, type RunPlan, type RunState, type VelocityCheck } from "./run-counters.ts";

/** A run's counts are kept at least a day after its last request (longer for a longer `max_duration_seconds`). */
const MIN_RUN_TTL_MS = 86_400_000;

/** A model call of a run, as the pipeline admits it. */
export interface RunRequest {
  workspaceId: string;
  /** The caller's `x-gateway-trace-id`; null when it sent none (no run: only key and end-user velocity apply). */
  traceId: string | null;
  gatewayKeyId: string | null;
  endUser: string | null;
  /** The config's and the gateway key's limits, merged (`mergedRunLimits`). */
  limits: RunLimits;
  operationId: string;
  /** The JSON body as sent upstream, for `repeat_limit`. */
  body: unknown;
  /** Where the cost is settled from: the request's log, once finished. */
  onFinish(listener: (entry: LogEntry) => void): void;
}

/** An MCP tool call of a run, as the MCP gateway counts it (`RunBreaker.countToolCall`). */
export interface RunToolCall {
  workspaceId: string;
  traceId: string | null;
  gatewayKeyId: string | null;
  endUser: string | null;
  /** The gateway key's limits (`AuthContext.runLimits`); null: nothing is counted. */
  limits: RunLimits | null | undefined;
  /** The server's label and the tool's name. */
  server: string;
  tool: string;
  /** The call's arguments, for `repeat_limit`. */
  arguments: unknown;
}

/** A counted tool call: settle its price once known (0 or absent for a free call). */
export interface ToolCallTicket {
  settle(costUsd: number | null | undefined): void;
}

/** A halt as reads and events show it. */
export interface RunHaltView {
  rule: RunHaltState["rule"];
  value: number;
  limit: number;
  scope: RunHaltState["scope"];
  halted_at: string;
}

/** A run as `GET /v1/runs/{trace_id}` shows it. */
export interface RunView {
  object: "run";
  trace_id: string;
  requests: number;
  tool_calls: number;
  cost_usd: number;
  started_at: string | null;
  halted: RunHaltView | null;
}

/** Told of each halt once, off the request path, when it trips (the `run.halted` webhook event). */
export interface RunHalted {
  workspaceId: string;
  run: RunId | null;
  gatewayKeyId: string | null;
  endUser: string | null;
  halt: RunHaltView;
}

export interface RunBreakerOptions {
  counters: RunCounters;
  onHalted?(halted: RunHalted): void;
  now?: () => number;
  warn?: (line: string) => void;
}

/**
 * The breaker of agent runs: before a run's model call (and, through `countToolCall`, its MCP
 * tool calls) it checks the run's limits and the key's and end user's spend velocity and counts
 * it, atomically (in Redis across replicas); a rule that trips halts the run, and that request
 * and every later one of the run answer 423 `run_halted` (not retried by the official SDKs),
 * naming the rule and the figure, until `resume`. The cost settles from the request's log.
 */
export class RunBreaker {
  private readonly now: () => number;
  private readonly warn: (line: string) => void;

  constructor(private readonly options: RunBreakerOptions) {
    this.now = options.now ?? Date.now;
    this.warn = options.warn ?? ((line) => console.error(line));
  }

  /** Admits a model call, or refuses it with 423 `run_halted`. */
  async admit(request: RunRequest): Promise<Result<null, GatewayError>> {
    const run = request.traceId === null ? null : { workspaceId: request.workspaceId, traceId: request.traceId };
    const fingerprint = run && request.limits.repeatLimit !== null ? requestFingerprint(request.operationId, request.body) : null;
    const plan = this.planFor(run, request, "request", fingerprint);
    if (!plan) return ok(null);
    const refused = await this.check(plan, request);
    if (refused) return fail(refused);
    const velocity = plan.velocity.map((check) => check.key);
    if (run || velocity.length > 0) request.onFinish((entry) => void this.settleEntry(run, velocity, entry));
    return ok(null);
  }

  /**
   * Counts one MCP tool call into its run, for the MCP gateway: checks the run's limits
   * (`max_tool_calls`, `repeat_limit` over the same tool and arguments, cost, duration) and spend
   * velocity, and counts it; refused, the error is the 423 `run_halted` a model call of the run
   * gets (answer it as a JSON-RPC error). Null when nothing limits the call. Never throws.
   */
  async countToolCall(call: RunToolCall): Promise<Result<ToolCallTicket | null, GatewayError>> {
    if (!call.limits) return ok(null);
    const run = call.traceId === null ? null : { workspaceId: call.workspaceId, traceId: call.traceId };
    const fingerprint = run && call.limits.repeatLimit !== null ? toolCallFingerprint(call.server, call.tool, call.arguments) : null;
    const plan = this.planFor(run, { ...call, limits: call.limits }, "tool", fingerprint);
    if (!plan) return ok(null);
    const refused = await this.check(plan, call);
    if (refused) return fail(refused);
    const velocity = plan.velocity.map((check) => check.key);
    return ok({ settle: (costUsd) => void this.settleUnits(run, velocity, toUnits(costUsd ?? 0)) });
  }

  /** A run's counts, or null when none are kept. */
  async state(run: RunId): Promise<RunView | null> {
    const state = await this.options.counters.state(run);
    return state && runView(run, state);
  }

  /** Lifts a run's halt and starts its counts afresh; its state before, or null when none was kept. */
  async resume(run: RunId): Promise<RunView | null> {
    const before = await this.options.counters.resume(run);
    return before && runView(run, before);
  }

  private planFor(run: RunId | null, request: Pick<RunRequest, "workspaceId" | "gatewayKeyId" | "endUser" | "limits">, kind: RunPlan["kind"], fingerprint: string | null): RunPlan | null {
    const { limits } = request;
    const nowMs = this.now();
    const velocity = limits.velocity.flatMap((rule): VelocityCheck[] => {
      const key = velocityKey(rule, run, request);
      return key === null ? [] : [{ scope: rule.scope, key, capUnits: toUnits(rule.maxCostUsdPerMinute), cutMs: velocityCut(nowMs) }];
    });
    if (!run && velocity.length === 0) return null;
    return {
      nowMs,
      run,
      kind,
      fingerprint,
      limits: {
        requests: limits.maxRequests,
        tools: limits.maxToolCalls,
        costUnits: limits.maxCostUsd === null ? null : toUnits(limits.maxCostUsd),
        durationMs: limits.maxDurationSeconds === null ? null : limits.maxDurationSeconds * 1000,
        repeats: limits.repeatLimit,
      },
      velocity,
      ttlMs: Math.max(MIN_RUN_TTL_MS, (limits.maxDurationSeconds ?? 0) * 1000 + 3_600_000),
    };
  }

  /** The refusal when the plan is refused (telling `onHalted` of a fresh halt); null when admitted. */
  private async check(plan: RunPlan, who: { workspaceId: string; gatewayKeyId: string | null; endUser: string | null }): Promise<GatewayError | null> {
    let verdict;
    try {
      verdict = await this.options.counters.admit(plan);
    } catch (error) {
      // Counters that fail are no reason to stop an agent: the request goes on uncounted.
      this.warn(`[gateway] runs: could not count a request (${error instanceof Error ? error.message : String(error)})`);
      return null;
    }
    if ("admitted" in verdict) return null;
    const halt = haltView(verdict.halt);
    if (verdict.fresh) {
      this.warn(`[gateway] run halted: ${describeHalt(plan.run, halt)}`);
      this.options.onHalted?.({ workspaceId: who.workspaceId, run: plan.run, gatewayKeyId: who.gatewayKeyId, endUser: who.endUser, halt });
    }
    return runHaltedError(plan.run, halt);
  }

  private settleEntry(run: RunId | null, velocity: readonly string[], entry: LogEntry): void {
    try {
      void this.settleUnits(run, velocity, toUnits(toLogRecord(entry).costUsd ?? 0));
    } catch (error) {
      this.warn(`[gateway] runs: could not settle a request (${error instanceof Error ? error.message : String(error)})`);
    }
  }

  private async settleUnits(run: RunId | null, velocity: readonly string[], units: number): Promise<void> {
    if (units <= 0) return;
    try {
      await this.options.counters.settle(run, velocity, units, this.now());
    } catch (error) {
      this.warn(`[gateway] runs: could not settle a request (${error instanceof Error ? error.message : String(error)})`);
    }
  }
}

/** The counter of a velocity rule: the run's, the key's or the end user's; null when the request has none of it. */
function velocityKey(rule: VelocityRule, run: RunId | null, request: { workspaceId: string; gatewayKeyId: string | null; endUser: string | null }): string | null {
  if (rule.scope === "run") return run && runVelocityKey(run);
  if (rule.scope === "key") return request.gatewayKeyId === null ? null : `gw:vel:key:${request.gatewayKeyId}`;
  if (request.endUser === null) return null;
  const user = request.endUser.length <= 128 ? request.endUser : `#${createHash("sha256").update(request.endUser).digest("hex").slice(0, 32)}`;
  return `gw:vel:user:${request.workspaceId}:${user}`;
}

function haltView(halt: RunHaltState): RunHaltView {
  const money = halt.rule === "max_cost_usd" || halt.rule === "max_cost_usd_per_minute";
  const seconds = halt.rule === "max_duration_seconds";
  const figure = (value: number) => (money ? toUsd(value) : seconds ? Math.round(value / 100) / 10 : value);
  return { rule: halt.rule, value: figure(halt.value), limit: figure(halt.limit), scope: halt.scope, halted_at: new Date(halt.atMs).toISOString() };
}

export function runView(run: RunId, state: RunState): RunView {
  return {
    object: "run",
    trace_id: run.traceId,
    requests: state.requests,
    tool_calls: state.tools,
    cost_usd: toUsd(state.costUnits),
    started_at: state.startMs === null ? null : new Date(state.startMs).toISOString(),
    halted: state.halt && haltView(state.halt),
  };
}

const RULE_TEXT: Record<RunHaltView["rule"], (halt: RunHaltView) => string> = {
  max_requests: (halt) => `max_requests: request ${halt.value} of a run limited to ${halt.limit}`,
  max_tool_calls: (halt) => `max_tool_calls: tool call ${halt.value} of a run limited to ${halt.limit}`,
  max_cost_usd: (halt) => `max_cost_usd: the run has cost $${halt.value} of $${halt.limit}`,
  max_duration_seconds: (halt) => `max_duration_seconds: the run has lasted ${halt.value} s of ${halt.limit} s`,
  repeat_limit: (halt) => `repeat_limit: the same call sent ${halt.value} times, at most ${halt.limit}`,
  max_cost_usd_per_minute: (halt) => `max_cost_usd_per_minute: the ${halt.scope === "key" ? "gateway key's" : halt.scope === "user" ? "end user's" : "run's"} last minute cost $${halt.value} of $${halt.limit}`,
};

function describeHalt(run: RunId | null, halt: RunHaltView): string {
  return `${run ? `run "${run.traceId.slice(0, 128)}"` : "a request without a run"} by ${RULE_TEXT[halt.rule](halt)}`;
}

/** The 423 of a halted run: the rule and the figure in the message and in `run`; `x-should-retry: false` for clients that honour it. */
function runHaltedError(run: RunId | null, halt: RunHaltView): GatewayError {
  const resume = run ? ` An admin resumes it with POST /v1/runs/${encodeURIComponent(run.traceId)}/resume.` : " It is refused until that minute's spend has aged out.";
  return new GatewayError("run_halted", `Halted ${describeHalt(run, halt)}.${resume}`, {
    headers: { "x-should-retry": "false" },
    details: { run: { trace_id: run?.traceId ?? null, ...halt } },
  });
}
