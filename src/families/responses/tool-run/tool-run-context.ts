import type { ToolStepRecord } from "../../../records/log-record.ts";
import type { McpApprovalPolicy } from "../../../records/control-plane.ts";
import type { FetchLike } from "../../../net/upstream-call.ts";
import { listingCut, openMcpSession, toolBytes, type McpSession, type SessionLimits } from "../../../mcp/mcp-session.ts";
import type { McpServerPlan } from "../../../mcp/server-plans.ts";
import type { JsonObject, Provider } from "../../../providers/provider.ts";

/** `GATEWAY_MCP_*`: how far a tool run may go. */
export interface ToolRunLimits {
  /** Model rounds at most; the last one is asked to answer without tools. */
  maxRounds: number;
  /** One step of an MCP session: connecting, a page of the listing, one call. */
  callTimeoutMs: number;
  /** The whole run, from its first connection to its answer. */
  runTimeoutMs: number;
  /** A tool's result as the model gets it; longer ones are cut with a note (while they are read). */
  maxResultBytes: number;
  /** One message of an MCP server once its long strings are cut: past it the step fails. */
  maxMessageBytes: number;
  /** Tools offered to the model over all the request's servers, and their size as JSON. */
  maxTools: number;
  maxToolsBytes: number;
  /** Tool calls of one model round that are run; the model is told the others were not. */
  maxCallsPerRound: number;
}

/** A server the run connected to (or tried to). */
export interface OpenedServer {
  plan: McpServerPlan;
  session: McpSession | null;
  /** Why it could not be listed, or why its listing was cut. */
  error: string | null;
  approvals: readonly McpApprovalPolicy[];
}

/**
 * One request's tool run, shared by the targets it may try: its servers are connected once,
 * its steps recorded for the log, the calls the client approved run once, and it is cancelled
 * when the client leaves or the run's time is up. A target that fails leaves it as it is for
 * the next; `close`, once the request has its answer, ends the sessions and is safe to call
 * more than once.
 */
export class ToolRunContext {
  readonly steps: ToolStepRecord[] = [];
  /** Approved calls already run, by approval request id: a fallback target reports them, never runs them again. */
  readonly approvedRuns = new Map<string, JsonObject>();
  readonly controller = new AbortController();
  private opened: Promise<OpenedServer[]> | null = null;
  private readonly timer: ReturnType<typeof setTimeout>;
  private clientGone = false;
  private readonly onClientAbort = () => this.clientClosed();

  constructor(
    readonly plans: readonly McpServerPlan[],
    readonly limits: ToolRunLimits,
    private readonly fetch: FetchLike,
    private readonly clientSignal: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(() => this.controller.abort(new Error(`The tool run took longer than ${limits.runTimeoutMs} ms.`)), limits.runTimeoutMs);
    this.timer.unref?.();
    clientSignal?.addEventListener("abort", this.onClientAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Every server connected and its tools listed, in parallel, once; the tools offered cut to the run's bounds, in the request's order. */
  servers(): Promise<OpenedServer[]> {
    this.opened ??= Promise.all(
      this.plans.map(async (plan) => {
        const startedAt = Date.now();
        const started = performance.now();
        const opened = await openMcpSession(plan, { fetch: this.fetch, signal: this.signal, limits: this.sessionLimits() });
        return { plan, opened, startedAt, duration: elapsed(started) };
      }),
    ).then((all) => {
      const budget = { tools: 0, bytes: 0 };
      return all.map(({ plan, opened, startedAt, duration }) => {
        const session = opened.ok ? withinBudget(opened.session, budget, this.limits) : null;
        const error = opened.ok ? session!.note : opened.error;
        this.steps.push({ type: "mcp_list_tools", round: 0, started_at: startedAt, duration_ms: duration, server_label: plan.label, tool: null, error });
        return { plan, session, error, approvals: plan.approvals };
      });
    });
    return this.opened;
  }

  private sessionLimits(): SessionLimits {
    const { callTimeoutMs, maxResultBytes, maxMessageBytes, maxTools, maxToolsBytes } = this.limits;
    return { timeoutMs: callTimeoutMs, maxResultBytes, maxMessageBytes, maxTools, maxToolsBytes };
  }

  /** Why the run stopped early, when it did: the client left or its time was up. */
  stopReason(): string | null {
    if (!this.signal.aborted) return null;
    const reason: unknown = this.signal.reason;
    return reason instanceof Error ? reason.message : "The tool run was cancelled.";
  }

  /** Ends the run because its client left: the call in flight is abandoned, no round follows. */
  clientClosed(): void {
    this.clientGone = true;
    this.controller.abort(new Error("The client closed the request."));
  }

  /** Whether the run stopped because the client left (rather than its time being up). */
  clientLeft(): boolean {
    return this.clientGone || this.clientSignal?.aborted === true;
  }

  /** Ends the run: whatever of it is still in flight (a listing a request no longer waits for) is abandoned, and the sessions closed. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.clientSignal?.removeEventListener("abort", this.onClientAbort);
    if (!this.controller.signal.aborted) this.controller.abort(new Error("The tool run has ended."));
    if (!this.opened) return;
    const servers = await this.opened;
    await Promise.all(servers.map((server) => server.session?.close()));
  }
}

export function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}

/** The bounds when the deps give none (tests, embedders); the gateway's come from `GATEWAY_MCP_*`. */
export const DEFAULT_TOOL_RUN_LIMITS: ToolRunLimits = {
  maxRounds: 5,
  callTimeoutMs: 30_000,
  runTimeoutMs: 300_000,
  maxResultBytes: 64 * 1024,
  maxMessageBytes: 4 * 1024 * 1024,
  maxTools: 128,
  maxToolsBytes: 256 * 1024,
  maxCallsPerRound: 16,
};

/** A session with the tools the run's budget still has room for (taken from it), and a note where it had not. */
function withinBudget(session: McpSession, budget: { tools: number; bytes: number }, limits: ToolRunLimits): McpSession {
  const spentBefore = budget.bytes;
  const tools = [];
  for (const tool of session.tools) {
    const size = toolBytes(tool);
    if (budget.tools >= limits.maxTools || budget.bytes + size > limits.maxToolsBytes) break;
    tools.push(tool);
    budget.tools += 1;
    budget.bytes += size;
  }
  if (tools.length === session.tools.length) return session;
  return { ...session, tools, note: listingCut(tools.length, budget.bytes - spentBefore, limits) };
}

/**
 * Whether the gateway drives the tool run on this target: always on a provider with no
 * Responses API of its own; on an OpenAI-format one only for a stored server, whose secrets go
 * to no upstream (an inline server the client names is the upstream's to call).
 */
export function gatewayRunsTools(provider: Provider, run: ToolRunContext): boolean {
  return !provider.openaiFormat || run.plans.some((plan) => plan.stored);
}

/** A tool run's steps for the log, once its answer has ended (its sessions closed then). */
export function toolRunOf(run: ToolRunContext): ToolStepRecord[] {
  void run.close();
  return [...run.steps];
}
