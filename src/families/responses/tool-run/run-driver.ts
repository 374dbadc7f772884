import { GatewayError, fail, ok, type Result } from "../../../errors.ts";
import type { JsonObject } from "../../../providers/provider.ts";
import type { UpstreamCall } from "../../../net/upstream-call.ts";
import { inputItems } from "../kept/kept-responses.ts";
import { needsApproval } from "../../../mcp/approval.ts";
import { echoedSettings } from "../via-chat/response.ts";
import { maskedMcpTools } from "../../../mcp/inline-secrets.ts";
import { randomUUID } from "node:crypto";
import { elapsed, type ToolRunContext } from "./tool-run-context.ts";
import type { RunProgress } from "./run-events.ts";
import {
  addUsage,
  approvalRequestItem,
  capped,
  functionCall,
  functionOutput,
  functionTool,
  isObject,
  listToolsItem,
  modelInput,
  toolOffers,
  type ApprovalDecision,
  type ToolOffer,
} from "./tool-items.ts";

/**
 * The steps of one tool run: the listings and approved calls, the model rounds, the calls each
 * round makes (or the approvals it waits for), to the final response, told to `RunProgress` as
 * they happen.
 */

/** One model round: the request (Responses format) sent to the target, its answer translated back. */
export type RoundCall = (body: JsonObject) => Promise<{ ok: true; response: JsonObject; status: number } | { ok: false; failure: Result<UpstreamCall, GatewayError> }>;

export interface ToolRunOptions {
  /** The client's body (after config overrides). */
  clientBody: JsonObject;
  stream: boolean;
  /** The most of a call's arguments and result the log keeps. */
  maxLoggedBytes: number;
}

type RoundAnswer = { ok: true; response: JsonObject } | { ok: false; failure: Result<UpstreamCall, GatewayError> };

export class RunDriver {
  private readonly output: JsonObject[] = [];
  private readonly conversation: unknown[] = [];
  private usage: JsonObject | null = null;
  private snapshot: JsonObject | null = null;
  private roundIndex = 0;
  private lastAnswer: JsonObject | null = null;
  /** Calls the model made that were run or sent for approval, against `max_tool_calls`. */
  private callsTaken = 0;
  /** The request's `max_tool_calls`: the calls this response may take at most. */
  private readonly maxToolCalls: number;

  private constructor(
    private readonly run: ToolRunContext,
    private readonly round: RoundCall,
    private readonly options: ToolRunOptions,
    private readonly offers: Map<string, ToolOffer>,
    private readonly baseInput: unknown[],
    private readonly decisions: readonly ApprovalDecision[],
    private readonly listings: JsonObject[],
  ) {
    const asked = options.clientBody.max_tool_calls;
    this.maxToolCalls = typeof asked === "number" && Number.isFinite(asked) && asked >= 0 ? Math.floor(asked) : Number.POSITIVE_INFINITY;
  }

  static async prepare(run: ToolRunContext, round: RoundCall, options: ToolRunOptions): Promise<Result<RunDriver, GatewayError>> {
    const servers = await run.servers();
    const offers = toolOffers(servers.flatMap((server) => (server.session ? [{ session: server.session, approvals: server.approvals }] : [])));
    const converted = modelInput(inputItems(options.clientBody.input), offers);
    if ("errorAt" in converted) {
      const param = `input.${converted.errorAt}`;
      return fail(new GatewayError("invalid_request", "This mcp_approval_response answers no mcp_approval_request of the input (or of the previous response).", { param }));
    }
    const listings = servers
      .filter((server) => !converted.listed.has(server.plan.label))
      .map((server) => listToolsItem(`mcpl_${server.plan.label}_${Date.now().toString(36)}`, server.plan.label, server.session?.tools ?? [], server.error));
    return ok(new RunDriver(run, round, options, offers, converted.items, converted.decisions, listings));
  }

  /** Listings, approved calls, then the first model round: what decides whether this target answers. */
  async firstRound(progress: RunProgress): Promise<RoundAnswer> {
    const body = this.options.clientBody;
    this.snapshot = {
      id: `resp_${randomUUID().replaceAll("-", "")}`,
      object: "response",
      created_at: Math.floor(Date.now() / 1000),
      status: "in_progress",
      model: body.model ?? null,
      error: null,
      incomplete_details: null,
      output: [],
      ...echoedSettings(body),
      tools: maskedMcpTools(body.tools ?? []),
    };
    progress.started(this.snapshot);
    for (const listing of this.listings) this.emitDone(progress, listing);
    for (const decision of this.decisions) {
      const request = decision.request;
      const offer = [...this.offers.values()].find((candidate) => candidate.label === request.server_label && candidate.tool.name === request.name);
      if (!offer) continue;
      const callId = String(request.id).replace(/^mcpr_/, "");
      const args = typeof request.arguments === "string" ? request.arguments : "{}";
      this.conversation.push(functionCall(callId, offer.fn, args));
      if (!decision.approve) {
        this.conversation.push(functionOutput(callId, "The user did not approve this tool call."));
        continue;
      }
      const item = await this.approvedCall(callId, offer, args, progress, String(request.id));
      this.conversation.push(functionOutput(callId, modelText(item)));
    }
    return this.ask();
  }

  private pendingFirst: JsonObject | null = null;

  /** The first round's calls and every round after it, to the final response. */
  async rest(progress: RunProgress): Promise<{ ok: true; response: JsonObject } | { ok: false; failure: Result<UpstreamCall, GatewayError> }> {
    let answer: JsonObject | null = this.pendingFirst;
    this.pendingFirst = null;
    try {
      while (answer) {
        const next = await this.afterRound(answer, progress);
        if (next === "done") break;
        const asked = await this.ask();
        if (!asked.ok) {
          const error = asked.failure.ok ? new GatewayError("upstream_error", `The upstream answered HTTP ${asked.failure.value.response.status} in round ${this.roundIndex}.`) : asked.failure.error;
          if (asked.failure.ok) asked.failure.value.abort();
          progress.failed(this.finalResponse("failed", { code: error.code, message: error.message }));
          return { ok: false, failure: fail(error) };
        }
        answer = asked.response;
      }
    } catch (error) {
      const message = this.run.stopReason() ?? (error instanceof Error ? error.message : String(error));
      progress.failed(this.finalResponse("failed", { code: "tool_run_failed", message }));
      const code = this.run.clientLeft() ? "client_closed" : this.run.signal.aborted ? "request_timeout" : "internal_error";
      return { ok: false, failure: fail(new GatewayError(code, message)) };
    }
    const response = this.finalResponse(this.lastAnswer?.status === "incomplete" ? "incomplete" : "completed", null);
    progress.finished(response);
    return { ok: true, response };
  }

  /** Sends the next round; the first's answer waits in `pendingFirst` for `rest`. */
  private async ask(): Promise<RoundAnswer> {
    const stopped = this.run.stopReason();
    if (stopped !== null) return { ok: false, failure: fail(new GatewayError(this.run.clientLeft() ? "client_closed" : "request_timeout", stopped)) };
    const last = this.roundIndex >= this.run.limits.maxRounds - 1 || this.callsTaken >= this.maxToolCalls;
    const tools = [...(Array.isArray(this.options.clientBody.tools) ? this.options.clientBody.tools : []).filter((tool) => !isObject(tool) || tool.type !== "mcp"), ...[...this.offers.values()].map(functionTool)];
    const { previous_response_id: _previous, ...body } = this.options.clientBody;
    const sent: JsonObject = { ...body, input: [...this.baseInput, ...this.conversation], stream: false, ...(tools.length > 0 ? { tools } : { tools: undefined }) };
    if (tools.length === 0) delete sent.tools;
    if (last && tools.length > 0) sent.tool_choice = "none";
    const startedAt = Date.now();
    const started = performance.now();
    const answered = await this.round(sent);
    const usage = answered.ok && isObject(answered.response.usage) ? answered.response.usage : null;
    this.run.steps.push({
      type: "model",
      round: this.roundIndex,
      started_at: startedAt,
      duration_ms: elapsed(started),
      server_label: null,
      tool: null,
      error: answered.ok ? null : answered.failure.ok ? `HTTP ${answered.failure.value.response.status}` : answered.failure.error.message,
      status: answered.ok ? answered.status : answered.failure.ok ? answered.failure.value.response.status : null,
      input_tokens: typeof usage?.input_tokens === "number" ? usage.input_tokens : 0,
      output_tokens: typeof usage?.output_tokens === "number" ? usage.output_tokens : 0,
    });
    if (!answered.ok) return answered;
    this.usage = addUsage(this.usage, answered.response.usage);
    this.lastAnswer = answered.response;
    if (this.roundIndex === 0) this.pendingFirst = answered.response;
    this.roundIndex += 1;
    return { ok: true, response: answered.response };
  }

  /** Acts on a round's answer: runs its MCP calls (or asks for approval); "done" when the run ends here. */
  private async afterRound(answer: JsonObject, progress: RunProgress): Promise<"done" | "again"> {
    const items = Array.isArray(answer.output) ? answer.output.filter(isObject) : [];
    const calls: Array<{ item: JsonObject; offer: ToolOffer }> = [];
    let clientCalls = false;
    for (const item of items) {
      const offer = item.type === "function_call" && typeof item.name === "string" ? this.offers.get(item.name) : undefined;
      if (offer) calls.push({ item, offer });
      else {
        if (item.type === "function_call") clientCalls = true;
        this.emitDone(progress, item);
      }
    }
    if (calls.length === 0) return "done";
    // Past the round bound, further calls are ignored, as OpenAI ignores calls past `max_tool_calls`.
    if (this.roundIndex >= this.run.limits.maxRounds) return "done";
    this.conversation.push(...items.filter((item) => item.type !== "function_call" || this.offers.has(String(item.name))));
    let waiting = false;
    let taken = 0;
    for (const { item, offer } of calls) {
      const callId = String(item.call_id ?? item.id);
      const args = typeof item.arguments === "string" ? item.arguments : "{}";
      // Calls past the request's `max_tool_calls` or the round's bound are not run (as OpenAI ignores them); the model is told.
      const notRun = this.callsTaken >= this.maxToolCalls ? `the response may make at most ${this.maxToolCalls} tool calls (max_tool_calls)` : taken >= this.run.limits.maxCallsPerRound ? `at most ${this.run.limits.maxCallsPerRound} tool calls of one round are run` : null;
      if (notRun !== null) {
        this.conversation.push(functionOutput(callId, `This call was not run: ${notRun}.`));
        continue;
      }
      taken += 1;
      this.callsTaken += 1;
      if (needsApproval(offer.approvals, offer.tool.name)) {
        this.emitDone(progress, approvalRequestItem(callId, offer, args));
        waiting = true;
        continue;
      }
      const done = await this.callTool(callId, offer, args, progress, null);
      this.conversation.push(functionOutput(callId, modelText(done)));
    }
    return waiting || clientCalls ? "done" : "again";
  }

  /** An approved call, run once for the request: a fallback target reports the first run's item. */
  private async approvedCall(callId: string, offer: ToolOffer, args: string, progress: RunProgress, approvalRequestId: string): Promise<JsonObject> {
    this.callsTaken += 1;
    const earlier = this.run.approvedRuns.get(approvalRequestId);
    if (earlier) {
      const { model_text: _text, ...shown } = earlier;
      this.emitDone(progress, shown);
      return earlier;
    }
    const item = await this.callTool(callId, offer, args, progress, approvalRequestId);
    this.run.approvedRuns.set(approvalRequestId, item);
    return item;
  }

  private async callTool(callId: string, offer: ToolOffer, args: string, progress: RunProgress, approvalRequestId: string | null): Promise<JsonObject> {
    const index = this.output.length;
    const base = { id: `mcp_${callId}`, type: "mcp_call", server_label: offer.label, name: offer.tool.name, arguments: args, ...(approvalRequestId !== null && { approval_request_id: approvalRequestId }) };
    progress.itemStarted(index, { ...base, status: "in_progress", output: null, error: null });
    this.output.push(base);
    const startedAt = Date.now();
    const started = performance.now();
    // Logged at once, so a request that ends mid-call (the client left) still shows the call.
    const stepAt = this.run.steps.length;
    const round = Math.max(0, this.roundIndex - 1);
    this.run.steps.push({ type: "mcp_call", round, started_at: startedAt, duration_ms: 0, server_label: offer.label, tool: offer.tool.name, error: "The request ended during the call.", arguments: capped(args, this.options.maxLoggedBytes), output: null });
    let parsed: unknown;
    try {
      parsed = args.trim() === "" ? {} : JSON.parse(args);
    } catch {
      parsed = null;
    }
    const outcome = isObject(parsed)
      ? await offer.session.call(offer.tool.name, parsed, { signal: this.run.signal, timeoutMs: this.run.limits.callTimeoutMs })
      : { ok: false as const, error: { type: "mcp_protocol_error" as const, code: -32602, message: "The model's arguments are not a JSON object." }, text: "The arguments are not a JSON object.", bytes: 0 };
    const maxBytes = this.run.limits.maxResultBytes;
    const item: JsonObject = outcome.ok
      ? { ...base, status: "completed", output: capped(outcome.output, maxBytes, outcome.bytes), error: null }
      : { ...base, status: "failed", output: null, error: outcome.error, model_text: capped(outcome.text, maxBytes, outcome.bytes) };
    const errorText = outcome.ok ? null : outcome.error.type === "mcp_protocol_error" ? outcome.error.message : capped(outcome.text, 1000);
    this.run.steps[stepAt] = {
      type: "mcp_call",
      round,
      started_at: startedAt,
      duration_ms: elapsed(started),
      server_label: offer.label,
      tool: offer.tool.name,
      error: errorText,
      arguments: capped(args, this.options.maxLoggedBytes),
      output: outcome.ok ? capped(outcome.output, this.options.maxLoggedBytes, outcome.bytes) : null,
    };
    const { model_text: _text, ...shown } = item;
    this.output[index] = shown;
    progress.itemDone(index, shown);
    return item;
  }

  private emitDone(progress: RunProgress, item: JsonObject): void {
    const index = this.output.length;
    this.output.push(item);
    progress.itemDone(index, item);
  }

  private finalResponse(status: string, error: JsonObject | null): JsonObject {
    const answer = this.lastAnswer ?? {};
    return {
      ...answer,
      ...(this.snapshot && { id: this.snapshot.id, created_at: this.snapshot.created_at }),
      ...(answer.model === undefined && { model: this.options.clientBody.model ?? null }),
      status,
      error,
      ...(status !== "incomplete" && { incomplete_details: null }),
      output: this.output,
      tools: maskedMcpTools(this.options.clientBody.tools ?? []),
      ...(this.usage && { usage: this.usage }),
    };
  }
}

/** What the model reads of a call: its output, or its error. */
function modelText(item: JsonObject): string {
  if (typeof item.output === "string") return item.output;
  return `Error: ${typeof item.model_text === "string" ? item.model_text : JSON.stringify(item.error)}`;
}
