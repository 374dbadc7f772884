import type { ToolStepRecord } from "../../records/log-record.ts";
import type { McpApprovalPolicy } from "../../records/control-plane.ts";
import type { FetchLike } from "../../net/upstream-call.ts";
import { openMcpSession, type McpSession } from "../../mcp/mcp-session.ts";
import type { McpServerPlan } from "../../mcp/server-plans.ts";
import type { Provider } from "../../providers/provider.ts";

/** `GATEWAY_MCP_*`: how far a tool run may go. */
export interface ToolRunLimits {
  /** Model rounds at most; the last one is asked to answer without tools. */
  maxRounds: number;
  /** One MCP request (connect, list, call). */
  callTimeoutMs: number;
  /** The whole run, from its first connection to its answer. */
  runTimeoutMs: number;
  /** A tool's result as the model gets it; longer ones are cut with a note. */
  maxResultBytes: number;
}

/** A server the run connected to (or tried to). */
export interface OpenedServer {
  plan: McpServerPlan;
  session: McpSession | null;
  error: string | null;
  approvals: readonly McpApprovalPolicy[];
}

/**
 * One request's tool run, shared by the targets it may try: its servers are connected once,
 * its steps recorded for the log, and it is cancelled when the client leaves or the run's time
 * is up. `close` ends the sessions; it is safe to call more than once.
 */
export class ToolRunContext {
  readonly steps: ToolStepRecord[] = [];
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

  /** Every server connected and its tools listed, in parallel, once. */
  servers(): Promise<OpenedServer[]> {
    this.opened ??= Promise.all(
      this.plans.map(async (plan) => {
        const startedAt = Date.now();
        const started = performance.now();
        const opened = await openMcpSession(plan, { fetch: this.fetch, signal: this.signal, timeoutMs: this.limits.callTimeoutMs });
        const error = opened.ok ? null : opened.error;
        this.steps.push({ type: "mcp_list_tools", round: 0, started_at: startedAt, duration_ms: elapsed(started), server_label: plan.label, tool: null, error });
        return { plan, session: opened.ok ? opened.session : null, error, approvals: plan.approvals };
      }),
    );
    return this.opened;
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

  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.clientSignal?.removeEventListener("abort", this.onClientAbort);
    if (!this.opened) return;
    const servers = await this.opened;
    await Promise.all(servers.map((server) => server.session?.close()));
  }
}

export function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}

/** The bounds when the deps give none (tests, embedders); the gateway's come from `GATEWAY_MCP_*`. */
export const DEFAULT_TOOL_RUN_LIMITS: ToolRunLimits = { maxRounds: 5, callTimeoutMs: 30_000, runTimeoutMs: 300_000, maxResultBytes: 64 * 1024 };

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
