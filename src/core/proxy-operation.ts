import { consultCache, type AnswerCache } from "../cache/response-cache.ts";
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { RequestLog } from "../logging/request-log.ts";
import type { GuardrailRecord } from "../control-plane/records.ts";
import type { JsonObject } from "../providers/provider.ts";
import type { KeyLimits } from "../control-plane/records.ts";
import { withLimitHeaders } from "../spend/admission-headers.ts";
import type { SpendMeter } from "../spend/spend-meter.ts";
import type { Store } from "../store/open-store.ts";
import { withOverrides } from "./config-overrides.ts";
import { guardrailDenial, loadGuardrails, runGuardrailStage, type GuardrailStageDeps, type HookResults } from "./guardrail-stage.ts";
import type { OperationDescriptor } from "./operation.ts";
import { loadRequestConfig, CONFIG_HEADER, type ConfigSourceDeps, type TargetSettings } from "./request-config.ts";
import { requestTimeout } from "./request-timeout.ts";
import type { CircuitBreakers } from "./circuit-breaker.ts";
import { tryTargets, type Answered } from "./routing-loop.ts";
import { resolveCandidates, type TargetHeaders, type TargetResolverDeps } from "./target-resolution.ts";
import { answerFrom, type ProxyResponse } from "./upstream-answer.ts";
import { callUpstream, type FetchLike } from "./upstream-call.ts";
import { meteredUpload } from "./upload-meter.ts";
import { fixedUpstream, type UpstreamRoute } from "./upstream-path.ts";
import { buildUpstreamRequest, type RequestBody } from "./upstream-request.ts";

export type { ProxyResponse } from "./upstream-answer.ts";

export interface ProxyDeps
  extends Omit<TargetResolverDeps, "store">,
    Omit<GuardrailStageDeps, "store">,
    Omit<ConfigSourceDeps, "store"> {
  store: Pick<Store, "configs" | "virtualKeys" | "guardrails">;
  fetch: FetchLike;
  /** Circuit breakers of targets with `cb_config`: shared through Redis when the gateway has it. */
  breakers: CircuitBreakers;
  /** The answer cache (`cache/`), used when the request's config has `cache`. */
  cache: AnswerCache;
  defaultTimeoutMs: number;
  /** `GATEWAY_MAX_LOGGED_BODY_BYTES`. */
  maxLoggedBodyBytes: number;
  /** `GATEWAY_MAX_RESPONSE_BUFFER_BYTES`: the most of an answer held to judge it whole. */
  maxResponseBufferBytes: number;
  /** `GATEWAY_STREAM_STALL_TIMEOUT_MS`: a stream's client that takes nothing this long is cut off; unset, never. */
  streamStallTimeoutMs?: number;
  /** Budgets and rate limits (`spend/`); absent: nothing is metered. */
  spend?: SpendMeter;
}

export interface ProxyInput {
  body: RequestBody;
  /** Where the request goes, by the operation's rules (`resolveUpstream`); absent for a fixed method and path. */
  upstream?: UpstreamRoute;
  headers: TargetHeaders & { timeout?: number; config?: string; cacheForceRefresh?: boolean; cacheNamespace?: string };
  /** Client headers passed upstream as they are (the pass-through's `OpenAI-Beta`). */
  forwardedHeaders?: Readonly<Record<string, string>>;
  workspaceId: string;
  /** The calling gateway key's budget and rate limit, if it has any. */
  gatewayKeyLimits?: KeyLimits | null;
  clientSignal?: AbortSignal;
  log: RequestLog;
}

/**
 * Proxies one request of an operation: apply the request's config, resolve its candidate
 * targets, run the input guardrails, try the targets in order (`tryTargets`), relay the answer
 * (streams event by event), run the output guardrails and fill in the request's log. Expected
 * failures are results.
 */
export async function proxyOperation(operation: OperationDescriptor, input: ProxyInput, deps: ProxyDeps): Promise<Result<ProxyResponse, GatewayError>> {
  const { log } = input;
  log.format = operation.format;
  const clientJson = input.body.kind === "json" ? input.body.value : null;
  if (input.body.kind === "json") log.requestBody ??= input.body.raw ?? JSON.stringify(input.body.value);
  if (clientJson) describeRequest(clientJson, log);

  const config = await loadRequestConfig(input.headers.config, input.workspaceId, deps);
  if (!config.ok) return config;
  const settings = config.value?.settings ?? null;
  log.configId = settings?.storedConfig?.id ?? null;
  log.configVersion = settings?.storedConfig?.version ?? null;
  const upstream = input.upstream ?? fixedUpstream(operation);
  const body = withOverrides(input.body, config.value?.rootOverrides, operation);
  if (!body.ok) return body;
  const json = body.value.kind === "json" ? body.value.value : null;
  const stream = json?.stream === true;
  log.stream = stream;

  const model = typeof json?.model === "string" ? json.model : null;
  const facts = { metadata: log.metadata, params: clientJson ?? {}, route: operation.id };
  const candidates = await resolveCandidates({ model, headers: input.headers, config: config.value, workspaceId: input.workspaceId, facts }, deps);
  if (!candidates.ok) return candidates;
  const first = candidates.value[0]!.target;
  log.provider = first.provider.id;
  log.model = first.model;
  log.virtualKeyId = first.virtualKeyId;
  const admitted = deps.spend
    ? await deps.spend.admit({ candidates: candidates.value, body: body.value, gatewayKeyId: log.identity.apiKeyId, gatewayKeyLimits: input.gatewayKeyLimits, workspaceId: input.workspaceId, onFinish: (listener) => log.onFinish(listener) })
    : ok(null);
  if (!admitted.ok) return admitted;

  const guarded = await guardrailsOf(operation, settings, input.workspaceId, deps, json !== null);
  if (!guarded.ok) return guarded;
  const { inputChecks, outputChecks } = guarded.value;
  const hookResults: HookResults | null = inputChecks.length + outputChecks.length > 0 ? { input: [], output: [] } : null;
  if (hookResults) log.guardrailResults = [];
  const checkContext = { model: first.model ?? "", metadata: log.metadata, fetch: deps.fetch, checkUrl: deps.checkCustomHost, signal: input.clientSignal };
  if (hookResults && json && operation.guardrails && inputChecks.length > 0) {
    const text = operation.guardrails.input(json);
    const outcome = await log.timeGuardrails("input", () => runGuardrailStage(inputChecks, { ...checkContext, text }, "input"));
    hookResults.input = outcome.results;
    log.guardrailResults?.push(...outcome.results);
    if (outcome.denied) return fail(guardrailDenial(hookResults, "input"));
  }
  const judgeOutput =
    hookResults && outputChecks.length > 0
      ? async (text: string): Promise<GatewayError | null> => {
          const outcome = await log.timeGuardrails("output", () => runGuardrailStage(outputChecks, { ...checkContext, text }, "output"));
          hookResults.output = outcome.results;
          log.guardrailResults?.push(...outcome.results);
          return outcome.denied ? guardrailDenial(hookResults, "output") : null;
        }
      : null;

  // Input guardrails judged the parsed body: raw text with a duplicate key could read
  // differently upstream, so what they judged is what is sent.
  const sent: RequestBody = body.value.kind === "json" && inputChecks.length > 0 ? { kind: "json", value: body.value.value } : meteredUpload(body.value, log);
  const cached = await consultCache(
    {
      operation,
      upstreamPath: upstream.path,
      settings: settings?.cache,
      candidates: candidates.value,
      body: json,
      forwardedHeaders: input.forwardedHeaders,
      workspaceId: input.workspaceId,
      forceRefresh: input.headers.cacheForceRefresh === true,
      namespace: input.headers.cacheNamespace,
      guarded: hookResults !== null,
      log,
      maxLoggedBytes: deps.maxLoggedBodyBytes,
    },
    deps.cache,
  );
  if (cached.hit) return ok(cached.hit);
  const answered = await tryTargets(
    candidates.value,
    async ({ target, settings: targetSettings }) => {
      // The target's override_params (they include the root's, which are in `sent` already).
      const targetBody = withOverrides(sent, targetSettings.overrideParams, operation);
      if (!targetBody.ok) return targetBody;
      const request = await buildUpstreamRequest(operation, upstream, target, targetBody.value, stream, input.forwardedHeaders, { fetch: deps.fetch });
      if (!request.ok) return request;
      const timeoutMs = requestTimeout(input.headers.timeout, targetSettings.requestTimeout ?? deps.defaultTimeoutMs);
      return callUpstream(request.value, { timeoutMs, clientSignal: input.clientSignal, fetch: deps.fetch, providerName: target.provider.name });
    },
    { attempts: log.attempts, breakers: deps.breakers, replayable: sent.kind !== "as-sent", clientSignal: input.clientSignal },
  );
  if (!answered.ok) return answered;
  const { target } = answered.value.candidate;
  log.provider = target.provider.id;
  log.model = target.model ?? log.model;
  log.virtualKeyId = target.virtualKeyId;
  const answer = cached.keep(await answerFrom(answered.value, {
    operation,
    clientBody: json,
    stream,
    log,
    maxLoggedBytes: deps.maxLoggedBodyBytes,
    maxBufferedBytes: deps.maxResponseBufferBytes,
    stallTimeoutMs: deps.streamStallTimeoutMs,
    hookResults,
    judgeOutput,
  }));
  return withLimitHeaders(answer, admitted.value);
}

/** The request's model, end user and generation parameters, for the log and its telemetry. */
function describeRequest(body: JsonObject, log: RequestLog): void {
  if (typeof body.model === "string") log.model = body.model;
  log.user = typeof body.user === "string" ? body.user : null;
  // Chat's current and legacy names, and the Responses API's.
  const maxTokens = numberOrNull(body.max_completion_tokens) ?? numberOrNull(body.max_tokens) ?? numberOrNull(body.max_output_tokens);
  const temperature = numberOrNull(body.temperature);
  const topP = numberOrNull(body.top_p);
  if (maxTokens !== null || temperature !== null || topP !== null) log.requestParams = { maxTokens, temperature, topP };
}

function numberOrNull(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/**
 * The config's guardrails, loaded; refused (400) when the operation cannot give them the text
 * they judge, so that no request is served unchecked.
 */
async function guardrailsOf(
  operation: OperationDescriptor,
  settings: TargetSettings | null,
  workspaceId: string,
  deps: ProxyDeps,
  hasJsonBody: boolean,
): Promise<Result<{ inputChecks: GuardrailRecord[]; outputChecks: GuardrailRecord[] }, GatewayError>> {
  const inputChecks = await loadGuardrails(settings?.inputGuardrails, workspaceId, deps);
  if (!inputChecks.ok) return inputChecks;
  const outputChecks = await loadGuardrails(settings?.outputGuardrails, workspaceId, deps);
  if (!outputChecks.ok) return outputChecks;
  const judges = hasJsonBody ? operation.guardrails : undefined;
  const inputRefused = inputChecks.value.length > 0 && !judges;
  const outputRefused = outputChecks.value.length > 0 && (!judges?.output || !judges.streamOutput);
  if (inputRefused || outputRefused) {
    const stage = inputRefused ? "input" : "output";
    return fail(new GatewayError("invalid_request", `The config attaches ${stage} guardrails, which ${operation.id} cannot run: remove them from the config for this operation.`, { param: CONFIG_HEADER }));
  }
  return ok({ inputChecks: inputChecks.value, outputChecks: outputChecks.value });
}
