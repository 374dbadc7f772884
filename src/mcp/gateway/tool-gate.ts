/**
 * What the MCP gateway does around each tool call: the key's call rate (per minute, in all and
 * per tool), the server's guardrails on the call's arguments and on its result (a denial is a
 * tool error the model can read), and the price it logs as the call's cost.
 */
import type { GuardrailRecord } from "../../records/control-plane.ts";
import type { SharedRedis } from "../../shared-state/redis.ts";
import { capped } from "../capped-text.ts";
import { PII_CATEGORIES, redactPii, type PiiCategory } from "../../guardrails/checks/pii.ts";
import type { CheckContext, GuardrailResult } from "../../guardrails/index.ts";
import { REFUSED, rpcError, type JsonRpcRequest, type JsonRpcResponse } from "./json-rpc.ts";
import type { ToolCall, ToolGate } from "./call-scope.ts";

/** A tool call's price: the tool's own (`tool_prices`), else the server's `call_price_usd`; null when neither is set. */
export function toolPrice(record: { callPriceUsd: number | null; toolPrices: Record<string, number> | null }, tool: string): number | null {
  const own = record.toolPrices?.[tool];
  return typeof own === "number" ? own : record.callPriceUsd;
}

/** Counts calls in fixed one-minute windows, across replicas when it is Redis. */
export interface CallCounter {
  /** Counts one call under `key` in the window starting at `windowStartMs`; the count after it. */
  count(key: string, windowStartMs: number): Promise<number>;
}

/** The budgets a tool call is held to: admitted before it (a refusal's message), settled from its log entry. */
export interface CallBudgets {
  /** Null when admitted (settled once the call's entry is heard by `onRecorded`); else why not. */
  admit(call: ToolCall): Promise<string | null>;
}

/** The run a tool call belongs to (its trace): counted before it, refused once the run is halted. */
export interface CallRuns {
  /** Null when counted (its price settled once its entry is heard); else why not. */
  count(call: ToolCall, args: unknown): Promise<string | null>;
}

export interface ToolGateDeps {
  /** A result's text parts are cut to this many bytes, with a note (`GATEWAY_MCP_MAX_RESULT_BYTES`). */
  maxResultBytes: number;
  counter: CallCounter;
  budgets: CallBudgets;
  runs: CallRuns;
  /** The workspace's guardrails by slug, secrets opened; why not, when one is missing or does not open. */
  guardrails(workspaceId: string, slugs: readonly string[]): Promise<GuardrailRecord[] | { error: string }>;
  /** Runs guardrails of one stage on a text. */
  runGuardrails(guardrails: readonly GuardrailRecord[], context: Omit<CheckContext, "stage">, stage: "input" | "output"): Promise<{ results: GuardrailResult[]; denied: boolean }>;
  checkContext: Pick<CheckContext, "fetch" | "checkUrl">;
  now?: () => number;
}

const MINUTE_MS = 60_000;

export function toolGate(deps: ToolGateDeps): ToolGate {
  const now = deps.now ?? Date.now;
  return {
    async before(call, request) {
      const limited = await rateRefusal(call, request, deps.counter, now());
      if (limited) return { ok: false, response: limited };
      const refused = (await deps.budgets.admit(call)) ?? (await deps.runs.count(call, request.params?.arguments ?? {}));
      if (refused !== null) return { ok: false, response: rpcError(request.id, REFUSED, refused) };
      const args = request.params?.arguments ?? {};
      const verdict = await judged(call, "input", JSON.stringify(args), deps);
      if (verdict.denied) return { ok: false, response: { jsonrpc: "2.0", id: request.id, result: toolError(`The call's arguments were denied by guardrail(s) ${verdict.denied}.`) } };
      if (verdict.redact) return { ok: true, request: { ...request, params: { ...request.params, arguments: redactedStrings(args, verdict.redact) } } };
      return { ok: true, request };
    },
    async after(call, rawResponse) {
      const response = cutResult(rawResponse, deps.maxResultBytes);
      if (!response.result || (call.server.record.outputGuardrails?.length ?? 0) === 0) return response;
      const verdict = await judged(call, "output", resultText(response.result), deps);
      if (verdict.denied) return { ...response, result: toolError(`The tool's result was denied by guardrail(s) ${verdict.denied}.`) };
      if (verdict.redact) return { ...response, result: redactedStrings(response.result, verdict.redact) as Record<string, unknown> };
      return response;
    },
    price: (call) => toolPrice(call.server.record, call.tool),
  };
}

/** The refusal of a call past the key's per-minute limits, or null. */
async function rateRefusal(call: ToolCall, request: JsonRpcRequest, counter: CallCounter, nowMs: number): Promise<JsonRpcResponse | null> {
  const rule = call.caller.access;
  const windowStart = nowMs - (nowMs % MINUTE_MS);
  const retryAfter = Math.ceil((windowStart + MINUTE_MS - nowMs) / 1000);
  const limits: Array<[limit: number | null | undefined, key: string, what: string]> = [
    [rule?.callsPerMinute, `${call.caller.apiKeyId}`, "tool calls per minute (calls_per_minute)"],
    [rule?.callsPerMinutePerTool, `${call.caller.apiKeyId}:${call.server.upstream.label}:${call.tool}`, `calls per minute of ${call.tool} (calls_per_minute_per_tool)`],
  ];
  for (const [limit, key, what] of limits) {
    if (typeof limit !== "number") continue;
    const count = await counter.count(key, windowStart);
    if (count > limit) return rpcError(request.id, REFUSED, `Rate limited: this gateway key's MCP access rule allows ${limit} ${what}; retry in ${retryAfter} s.`, { retry_after_seconds: retryAfter });
  }
  return null;
}

/** What the server's guardrails of a stage say: the denying ones' slugs, or the personal data to redact (`action.redact` with a failed `pii` check). */
interface Verdict {
  denied: string | null;
  redact: PiiCategory[] | null;
}

async function judged(call: ToolCall, stage: "input" | "output", text: string, deps: ToolGateDeps): Promise<Verdict> {
  const slugs = (stage === "input" ? call.server.record.inputGuardrails : call.server.record.outputGuardrails) ?? [];
  if (slugs.length === 0) return { denied: null, redact: null };
  const guardrails = await deps.guardrails(call.caller.workspaceId, slugs);
  // A server whose guardrails cannot run is closed, not open: its calls are refused until it is fixed.
  if ("error" in guardrails) return { denied: `${slugs.join(", ")} (${guardrails.error})`, redact: null };
  const outcome = await deps.runGuardrails(guardrails, { ...deps.checkContext, text, model: call.tool, metadata: { ...call.caller.metadata } }, stage);
  if (outcome.denied) return { denied: outcome.results.filter((result) => !result.verdict && result.deny).map((result) => result.guardrail).join(", "), redact: null };
  const categories = new Set<PiiCategory>();
  for (const [index, result] of outcome.results.entries()) {
    const guardrail = guardrails[index];
    if (!guardrail?.action.redact || result.verdict) continue;
    result.checks.forEach((check, at) => {
      if (check.check !== "pii" || check.verdict) return;
      const params = (guardrail.checks[at]?.params ?? {}) as { categories?: PiiCategory[] };
      for (const category of params.categories ?? PII_CATEGORIES) categories.add(category);
    });
  }
  return { denied: null, redact: categories.size > 0 ? [...categories] : null };
}

/** A JSON value with the personal data of `categories` redacted from every string in it. */
function redactedStrings(value: unknown, categories: readonly PiiCategory[]): unknown {
  if (typeof value === "string") return redactPii(value, categories);
  if (Array.isArray(value)) return value.map((item) => redactedStrings(item, categories));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactedStrings(item, categories)]));
  return value;
}

/** A result whose text parts are cut to `maxBytes` each, with the tool loop's note where cut. */
function cutResult(response: JsonRpcResponse, maxBytes: number): JsonRpcResponse {
  const content = response.result?.content;
  if (!Array.isArray(content)) return response;
  let cut = false;
  const parts = content.map((part) => {
    const text = part && typeof part === "object" ? (part as { text?: unknown }).text : undefined;
    if (typeof text !== "string" || Buffer.byteLength(text) <= maxBytes) return part;
    cut = true;
    return { ...part, text: capped(text, maxBytes) };
  });
  return cut ? { ...response, result: { ...response.result, content: parts } } : response;
}

function toolError(text: string): Record<string, unknown> {
  return { content: [{ type: "text", text }], isError: true };
}

/** A result's text for the guardrails: its text parts, else the whole as JSON. */
function resultText(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? result.content : [];
  const texts = content.flatMap((part) => (part && typeof part === "object" && typeof (part as { text?: unknown }).text === "string" ? [(part as { text: string }).text] : []));
  return texts.length > 0 ? texts.join("\n") : JSON.stringify(result);
}

/** Calls counted in Redis, shared by every replica; in this process while Redis is away. */
export function redisCallCounter(redis: SharedRedis): CallCounter {
  const fallback = memoryCallCounter();
  return {
    async count(key, windowStartMs) {
      if (!redis.available) return fallback.count(key, windowStartMs);
      const redisKey = `gateway:mcp:calls:${key}:${windowStartMs}`;
      try {
        const results = await redis.client.multi().incr(redisKey).pexpire(redisKey, 2 * MINUTE_MS).exec();
        const count = results?.[0]?.[1];
        return typeof count === "number" ? count : fallback.count(key, windowStartMs);
      } catch {
        return fallback.count(key, windowStartMs);
      }
    },
  };
}

/** Calls counted in this process: a gateway without Redis. */
export function memoryCallCounter(): CallCounter {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    async count(key, windowStartMs) {
      const held = windows.get(key);
      if (held && held.start === windowStartMs) {
        held.count += 1;
        return held.count;
      }
      if (windows.size > 100_000) windows.clear();
      windows.set(key, { start: windowStartMs, count: 1 });
      return 1;
    },
  };
}
