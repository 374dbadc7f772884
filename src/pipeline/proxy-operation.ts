import { consultCache, type AnswerCache } from "../cache/response-cache.ts";
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { LogEntry, RequestParams } from "../logging/log-entry.ts";
import type { AttemptRecord } from "../records/log-record.ts";
import { emptyOutcome, type Outcome, type PendingEnding, type RefusedAnswer, type RequestDescription } from "../logging/outcome.ts";
import type { JsonObject } from "../providers/provider.ts";
import { errorWithLimitHeaders, responseWithLimitHeaders, type SpendMeter } from "../spend/spend-meter.ts";
import type { RunBreaker } from "../runs/run-breaker.ts";
import { mergedRunLimits, type RunLimits } from "../records/run-limits.ts";
import type { Store } from "../store/open-store.ts";
import { guardrailJudge, guardrailsOf, type GuardrailJudge, type GuardrailStageDeps } from "./guardrail-stage.ts";
import { fixedUpstream, type OperationDescriptor, type UpstreamRoute } from "../operation/descriptor.ts";
import { loadRequestConfig, requestTimeout, withOverrides, type ConfigSourceDeps, type RequestConfig } from "./request-config.ts";
import type { TargetSettings } from "./routing-plan.ts";
import type { CircuitBreakers } from "./circuit-breaker.ts";
import { tryTargets, type Candidate } from "./routing-loop.ts";
import { resolveCandidates, type TargetHeaders, type TargetResolverDeps } from "./target-resolution.ts";
import { answerFrom } from "./upstream-answer.ts";
import type { ProxyResponse } from "../operation/proxy-response.ts";
import { callUpstream, type FetchLike } from "../net/upstream-call.ts";
import { buildUpstreamRequest, meteredUpload } from "./upstream-request.ts";
import { cacheEmbedder, type CacheEmbeddingDeps } from "./cache-embedder.ts";
import type { EmbedderResult } from "../cache/semantic-lookup.ts";
import type { RequestBody } from "../operation/request-body.ts";
import type { McpServerPlan } from "../mcp/server-plans.ts";
import { DEFAULT_TOOL_RUN_LIMITS, gatewayRunsTools, ToolRunContext, toolRunOf, type ToolRunLimits } from "../families/responses/tool-run/tool-run-context.ts";
import { runTools } from "../families/responses/tool-run/tool-run.ts";
import { RoundAttempts, roundsWithFallback } from "../families/responses/tool-run/round-fallback.ts";
import { roundCall } from "../families/responses/tool-run/round-call.ts";
import { joinExperiment, type ExperimentJoin } from "../experiments/experiment-join.ts";
import { configWithVariant } from "./experiment-variant.ts";
import { uuidv7 } from "../lib/ids.ts";

export type { ProxyResponse } from "../operation/proxy-response.ts";

export interface ProxyDeps
  extends Omit<TargetResolverDeps, "store">,
    Omit<GuardrailStageDeps, "store">,
    Omit<ConfigSourceDeps, "store"> {
  store: Pick<Store, "configs" | "virtualKeys" | "guardrails" | "experiments">;
  fetch: FetchLike;
  /** Circuit breakers of targets with `cb_config`: shared through Redis when the gateway has it. */
  breakers: CircuitBreakers;
  /** The answer cache (`cache/`), used when the request's config has `cache`. */
  cache: AnswerCache;
  /** The embeddings operation and the embedding call's budget, for `mode: semantic`; absent, semantic lookups are skipped. */
  cacheEmbedding?: Pick<CacheEmbeddingDeps, "embeddings" | "timeoutMs">;
  defaultTimeoutMs: number;
  /** `GATEWAY_MAX_LOGGED_BODY_BYTES`. */
  maxLoggedBodyBytes: number;
  /** `GATEWAY_MAX_RESPONSE_BUFFER_BYTES`: the most of an answer held to judge it whole. */
  maxResponseBufferBytes: number;
  /** `GATEWAY_STREAM_STALL_TIMEOUT_MS`: a stream's client that takes nothing this long is cut off; unset, never. */
  streamStallTimeoutMs?: number;
  /** Budgets and rate limits (`spend/`); absent: nothing is metered. */
  spend?: SpendMeter;
  /** The breaker of agent runs (`runs/`); absent: no run is counted. */
  runs?: RunBreaker;
  /** `GATEWAY_MCP_*`: the bounds of a tool run the gateway drives. */
  toolRunLimits?: ToolRunLimits;
}

export interface ProxyInput {
  body: RequestBody;
  /** Where the request goes, by the operation's rules (`resolveUpstream`); absent for a fixed method and path. */
  upstream?: UpstreamRoute;
  headers: TargetHeaders & { timeout?: number; config?: string; cacheForceRefresh?: boolean; cacheNamespace?: string };
  /** Client headers passed upstream as they are (the pass-through's `OpenAI-Beta`). */
  forwardedHeaders?: Readonly<Record<string, string>>;
  workspaceId: string;
  /** This request's log id (`x-gateway-log-id`): a cached answer names the request it came from. */
  logId?: string;
  /** The calling gateway key, and its run limits when it has any. */
  gatewayKeyId: string | null;
  gatewayKeyRunLimits?: RunLimits | null;
  /** The caller's own `x-gateway-trace-id` (null when it sent none): the run the request belongs to. */
  traceId?: string | null;
  /** The request's metadata: config conditions route on it. */
  metadata: Readonly<Record<string, string>>;
  /** The client's own body text, when the body here is another (Anthropic Messages translated to chat): the log keeps what the client sent. */
  clientBodyText?: string;
  /** The stored prompt that rendered the body, for the log. */
  prompt?: { id: string; version: number };
  /** The request's place in its config's experiment, when the route decided it already (a prompt run: the variant may choose the version); null for none. */
  experiment?: ExperimentJoin | null;
  /** Registers a listener for the request's log entry once it is built: where spend settles. */
  whenSettled(listener: (entry: LogEntry) => void): void;
  clientSignal?: AbortSignal;
  /** Called as a relayed stream ends, before its last bytes go out (Bun's entry point sets the connection's idle timeout back then). */
  beforeStreamEnds?: () => void;
  /** The MCP servers of a Responses request's `mcp` tools, for a target that cannot run them itself (`families/responses/tool-run/`). */
  mcpServers?: readonly McpServerPlan[];
}

/** A request served: the client's response, what the pipeline did, and how the answer ends. */
export interface Proxied {
  response: ProxyResponse;
  outcome: Outcome;
  ending: PendingEnding;
}

/** A request refused: the error the client gets, what the pipeline did, and what the log keeps of an upstream answer not passed on. */
export interface ProxyRefusal {
  error: GatewayError;
  outcome: Outcome;
  refused: RefusedAnswer | null;
}

export type ProxyResult = Result<Proxied, ProxyRefusal>;

/**
 * Proxies one request of an operation through the pipeline's stages, each a function that
 * takes what the earlier ones produced: read the request → config → candidates → admission
 * (budgets, limits) → input guardrails → cache → routing loop → answer (with output guardrails).
 * What each stage learns goes into the returned outcome, from which the caller builds the log
 * record once. Expected failures are results.
 */
export async function proxyOperation(operation: OperationDescriptor, input: ProxyInput, deps: ProxyDeps): Promise<ProxyResult> {
  const described = describeRequest(input.body, input.clientBodyText);
  // The outcome so far: every stage's result lands here, and it is returned as a value.
  let outcome: Outcome = {
    ...emptyOutcome(operation.answers.name, operation.genAiOperation ?? null),
    request: described,
    promptId: input.prompt?.id ?? null,
    promptVersion: input.prompt?.version ?? null,
    model: described?.model ?? null,
  };
  // An upload is described as it passes: a refusal logs it as far as it was sent.
  let describedNow = (): RequestDescription | null => described;
  const refuse = (error: GatewayError, refused: RefusedAnswer | null = null, run: ToolRunContext | null = null): ProxyResult =>
    fail({ error, outcome: { ...outcome, request: describedNow(), ...(run && run.steps.length > 0 && { toolRun: [...run.steps] }) }, refused });

  const loaded = await loadRequestConfig(input.headers.config, input.workspaceId, deps);
  if (!loaded.ok) return refuse(loaded.error);
  // A config without an experiment pays a property read; one with it a cache lookup and a hash, without a promise when cached.
  const joining = input.experiment !== undefined ? ok(input.experiment) : joinRequestExperiment(loaded.value, input, deps);
  const joined = joining instanceof Promise ? await joining : joining;
  if (!joined.ok) return refuse(joined.error);
  // The variant's change is a config change: the stages below see the config as the variant makes it.
  const config: RequestConfig | null = loaded.value && joined.value ? configWithVariant(loaded.value, joined.value.variant) : loaded.value;
  if (joined.value?.logged) outcome = { ...outcome, experimentId: joined.value.experiment.id, experimentVariant: joined.value.variant.name };
  const settings = config?.settings ?? null;
  outcome = { ...outcome, configId: settings?.storedConfig?.id ?? null, configVersion: settings?.storedConfig?.version ?? null };
  const upstream = input.upstream ?? fixedUpstream(operation);
  const body = withOverrides(input.body, config?.rootOverrides, operation);
  if (!body.ok) return refuse(body.error);
  const json = body.value.kind === "json" ? body.value.value : null;
  const stream = json?.stream === true;
  outcome = { ...outcome, stream };

  const model = typeof json?.model === "string" ? json.model : null;
  const facts = { metadata: input.metadata, params: input.body.kind === "json" ? input.body.value : {}, route: operation.id };
  const candidates = await resolveCandidates({ model, headers: input.headers, config, workspaceId: input.workspaceId, facts }, deps);
  if (!candidates.ok) return refuse(candidates.error);
  const first = candidates.value[0]!.target;
  outcome = { ...outcome, provider: first.provider.id, model: first.model, virtualKeyId: first.virtualKeyId };

  // Counted only under run limits (the config's or the key's): a request without any pays a property read.
  const runLimits = deps.runs && (settings?.runLimits || input.gatewayKeyRunLimits) ? mergedRunLimits(settings?.runLimits, input.gatewayKeyRunLimits) : null;
  if (runLimits && deps.runs) {
    const run = await deps.runs.admit({
      workspaceId: input.workspaceId,
      traceId: input.traceId ?? null,
      gatewayKeyId: input.gatewayKeyId,
      endUser: endUserOf(json, input.metadata),
      limits: runLimits,
      operationId: operation.id,
      body: json,
      onFinish: input.whenSettled,
    });
    if (!run.ok) return refuse(run.error);
  }

  const admission = deps.spend
    ? deps.spend.admit({
        candidates: candidates.value,
        body: body.value,
        gatewayKeyId: input.gatewayKeyId,
        workspaceId: input.workspaceId,
        endUser: endUserOf(json, input.metadata),
        metadata: input.metadata,
        onFinish: input.whenSettled,
      })
    : ok(null);
  // A workspace without budgets is answered at once: no promise to wait for.
  const admitted = admission instanceof Promise ? await admission : admission;
  if (!admitted.ok) return refuse(admitted.error);

  const guarded = await guardrailsOf(operation, settings, input.workspaceId, deps, json !== null);
  if (!guarded.ok) return refuse(guarded.error);
  const judge = guardrailJudge(guarded.value, { model: first.model ?? "", metadata: input.metadata, fetch: deps.fetch, checkUrl: deps.checkCustomHost, signal: input.clientSignal });
  if (judge) outcome = { ...outcome, guardrails: judge.inputRuns };
  if (judge && json && operation.guardrails && guarded.value.input.length > 0) {
    const denied = await judge.run("input", operation.guardrails.input(json));
    if (denied) return refuse(denied);
  }

  // Input guardrails judged the parsed body: raw text with a duplicate key could read
  // differently upstream, so what they judged is what is sent.
  const upload = body.value.kind === "json" && guarded.value.input.length > 0 ? { body: { kind: "json", value: body.value.value } as RequestBody, described: () => null } : meteredUpload(body.value);
  const sent = upload.body;
  describedNow = () => upload.described() ?? described;
  const cache = await consultCache(
    {
      operation,
      upstreamPath: upstream.path,
      settings: settings?.cache,
      candidates: candidates.value,
      body: json,
      bodyText: body.value.kind === "json" ? body.value.raw : undefined,
      forwardedHeaders: input.forwardedHeaders,
      workspaceId: input.workspaceId,
      forceRefresh: input.headers.cacheForceRefresh === true,
      namespace: input.headers.cacheNamespace,
      guarded: judge !== null,
      maxLoggedBytes: deps.maxLoggedBodyBytes,
      logId: input.logId ?? null,
      embedder: semanticEmbedder(settings?.cache, input.workspaceId, deps),
    },
    deps.cache,
  );
  outcome = { ...outcome, cacheStatus: cache.status, cacheSimilarity: cache.similarity, cacheSourceLogId: cache.sourceLogId, cacheNote: cache.note };
  if (cache.hit) {
    const { hit } = cache;
    outcome = { ...outcome, provider: hit.provider, model: hit.model ?? outcome.model, stream: hit.stream || outcome.stream };
    return ok({ response: hit.response, outcome, ending: hit.ending });
  }

  const attempts: AttemptRecord[] = [];
  // Made only for a request with `mcp` tools: a plain request pays nothing for tool runs.
  const run = input.mcpServers && input.mcpServers.length > 0 && json ? new ToolRunContext(input.mcpServers, deps.toolRunLimits ?? DEFAULT_TOOL_RUN_LIMITS, deps.fetch, input.clientSignal) : null;
  const roundAttempts = run ? new RoundAttempts(attempts) : null;
  const send = (candidate: Candidate) =>
    run && json && roundAttempts && gatewayRunsTools(candidate.target.provider, run)
      ? runTools(run, roundsWithFallback(candidates.value, candidate, (on) => roundCall(on, operation, upstream, { timeout: input.headers.timeout, forwardedHeaders: input.forwardedHeaders }, run, deps), { attempts: roundAttempts.sink, breakers: deps.breakers }), {
          clientBody: json,
          stream,
          maxLoggedBytes: deps.maxLoggedBodyBytes,
        })
      : sendTo(candidate, operation, upstream, sent, stream, input, deps);
  const answered = await tryTargets(candidates.value, send, {
    attempts,
    breakers: deps.breakers,
    replayable: sent.kind !== "as-sent",
    clientSignal: input.clientSignal,
  });
  roundAttempts?.loopEnded();
  outcome = { ...outcome, attempts };
  if (!answered.ok) {
    void run?.close();
    return refuse(answered.error, null, run);
  }
  const { target } = answered.value.candidate;
  outcome = { ...outcome, provider: target.provider.id, model: target.model ?? outcome.model, virtualKeyId: target.virtualKeyId };

  const answer = await answerFrom(answered.value, {
    operation,
    clientBody: json,
    stream,
    maxLoggedBytes: deps.maxLoggedBodyBytes,
    maxBufferedBytes: deps.maxResponseBufferBytes,
    stallTimeoutMs: deps.streamStallTimeoutMs,
    beforeStreamEnds: input.beforeStreamEnds,
    hookResults: judge?.hookResults ?? null,
    judgeOutput: judge && guarded.value.output.length > 0 ? (text) => judge.run("output", text) : null,
  });
  if (!answer.ok) {
    void run?.close();
    if (answer.error.attemptFailed) outcome = { ...outcome, attempts: withLastAttemptError(attempts, answer.error.error) };
    if (judge) outcome = { ...outcome, guardrails: judge.allRuns() };
    return refuse(errorWithLimitHeaders(answer.error.error, admitted.value), answer.error.refused, run);
  }
  const served = { provider: target.provider.id, model: target.model ?? outcome.model };
  const response = responseWithLimitHeaders(cache.keep(answer.value.response, served), admitted.value);
  return ok({ response, outcome, ending: endingWithLateFacts(answer.value.ending, judge, upload.described, run) });
}

/** The experiment the request's config names, as this request meets it (`experiments/experiment-join.ts`). */
function joinRequestExperiment(config: RequestConfig | null, input: ProxyInput, deps: ProxyDeps): ReturnType<typeof joinExperiment> {
  if (config?.experimentId === undefined) return ok(null);
  const json = input.body.kind === "json" ? input.body.value : null;
  return joinExperiment(
    config?.experimentId,
    {
      workspaceId: input.workspaceId,
      promptId: input.prompt?.id ?? null,
      pinnedPrompt: false,
      facts: { endUser: endUserOf(json, input.metadata), traceId: input.traceId ?? null, logId: input.logId ?? uuidv7() },
    },
    deps,
  );
}

/** The embedder of a `semantic` cache, made only when the exact lookup missed; null for any other config. */
function semanticEmbedder(settings: TargetSettings["cache"], workspaceId: string, deps: ProxyDeps): (() => Promise<EmbedderResult>) | null {
  const { cacheEmbedding } = deps;
  if (settings?.mode !== "semantic" || !cacheEmbedding) return null;
  const { embedding } = settings;
  if (!embedding) return () => Promise.resolve({ ok: false, reason: "the config's cache names no embedding target" });
  return () => cacheEmbedder(embedding, workspaceId, { ...deps, ...cacheEmbedding });
}

/** One try of one candidate: its body with the target's overrides, built for its provider, sent. */
async function sendTo(candidate: Candidate, operation: OperationDescriptor, upstream: UpstreamRoute, sent: RequestBody, stream: boolean, input: ProxyInput, deps: ProxyDeps) {
  const { target, settings } = candidate;
  // The target's override_params (they include the root's, which are in `sent` already).
  const targetBody = withOverrides(sent, settings.overrideParams, operation);
  if (!targetBody.ok) return targetBody;
  const request = await buildUpstreamRequest(operation, upstream, target, targetBody.value, stream, input.forwardedHeaders, { fetch: deps.fetch });
  if (!request.ok) return request;
  const timeoutMs = requestTimeout(input.headers.timeout, settings.requestTimeout ?? deps.defaultTimeoutMs);
  return callUpstream(request.value, { timeoutMs, clientSignal: input.clientSignal, fetch: deps.fetch, providerName: target.provider.name });
}

/**
 * The answer's ending with what only its end knows beyond the answer: a stream's output
 * guardrail results, and an upload's description (final once its body was sent).
 */
function endingWithLateFacts(ending: PendingEnding, judge: GuardrailJudge | null, described: () => RequestDescription | null, run: ToolRunContext | null): PendingEnding {
  const late = (value: Awaited<PendingEnding>) => {
    const request = described();
    const outputGuardrails = judge?.outputRuns.results.length ? judge.outputRuns : null;
    const toolRun = run ? toolRunOf(run) : undefined;
    if (request === null && outputGuardrails === null && toolRun === undefined) return value;
    return { ...value, request: request ?? value.request, outputGuardrails, ...(toolRun && { toolRun }) };
  };
  return ending instanceof Promise ? ending.then(late) : late(ending);
}

/** The attempts with the last one's error as the provider read the upstream's answer. */
function withLastAttemptError(attempts: readonly AttemptRecord[], error: GatewayError): AttemptRecord[] {
  const last = attempts.at(-1);
  if (!last) return [...attempts];
  return [...attempts.slice(0, -1), { ...last, errorCode: error.upstream?.code ?? error.code, errorMessage: error.message }];
}

/** The request's model, end user and generation parameters, for the log and its telemetry; null for a body that is not JSON. */
function describeRequest(body: RequestBody, clientText: string | undefined): RequestDescription | null {
  if (body.kind !== "json") return null;
  const value = body.value;
  // Chat's current and legacy names, and the Responses API's.
  const maxTokens = numberOrNull(value.max_completion_tokens) ?? numberOrNull(value.max_tokens) ?? numberOrNull(value.max_output_tokens);
  const temperature = numberOrNull(value.temperature);
  const topP = numberOrNull(value.top_p);
  const params: RequestParams | null = maxTokens !== null || temperature !== null || topP !== null ? { maxTokens, temperature, topP } : null;
  return {
    body: clientText ?? body.raw ?? JSON.stringify(value),
    model: typeof value.model === "string" ? value.model : null,
    user: typeof value.user === "string" ? value.user : null,
    params,
  };
}

/** The end user budgets hold: the body's `user`, else `x-gateway-metadata`'s `_user`. */
export function endUserOf(json: JsonObject | null, metadata: Readonly<Record<string, string>>): string | null {
  if (typeof json?.user === "string" && json.user !== "") return json.user;
  return metadata._user ?? null;
}

function numberOrNull(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}
