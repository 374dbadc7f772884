import { fail, GatewayError, ok, type Result } from "../errors.ts";
import { inputText, outputText } from "../guardrails/index.ts";
import type { RequestLog } from "../logging/request-log.ts";
import { buildChatRequest, clientWantsStreamUsage } from "../providers/openai/chat-request.ts";
import { upstreamErrorFromBody } from "../providers/openai/upstream-error.ts";
import { createChatStreamAssembler } from "./chat-stream-assembler.ts";
import { relayChatStream } from "./chat-stream-relay.ts";
import { resolveChatTarget, type TargetHeaders, type TargetResolverDeps } from "./chat-target.ts";
import { guardrailDenial, loadGuardrails, runGuardrailStage, type GuardrailStageDeps, type HookResults } from "./guardrail-stage.ts";
import { overrideParamsError } from "./config-overrides.ts";
import { loadRequestConfig, type ConfigSourceDeps } from "./request-config.ts";
import { requestTimeout } from "./request-timeout.ts";
import { parseObject, readErrorText, readJsonAnswer } from "./json-answer.ts";
import { callUpstream, type FetchLike } from "./upstream-call.ts";
import { passedOnHeaders } from "./upstream-headers.ts";
import type { Store } from "../store/open-store.ts";

export interface ChatProxyDeps
  extends Omit<TargetResolverDeps, "store">,
    Omit<GuardrailStageDeps, "store">,
    Omit<ConfigSourceDeps, "store"> {
  store: Pick<Store, "configs" | "virtualKeys" | "guardrails">;
  fetch: FetchLike;
  defaultTimeoutMs: number;
  /** `GATEWAY_MAX_LOGGED_BODY_BYTES`. */
  maxLoggedBodyBytes: number;
  /** `GATEWAY_MAX_RESPONSE_BUFFER_BYTES`: the most of an answer held to judge it whole. */
  maxResponseBufferBytes: number;
}

export interface ChatProxyInput {
  body: Record<string, unknown> & { model: string };
  /** `body` as the client sent it (JSON text), when the body is the client's own. */
  rawBody?: string;
  headers: TargetHeaders & { timeout?: number; config?: string };
  workspaceId: string;
  clientSignal?: AbortSignal;
  log: RequestLog;
}

/** What the route sends back: status, headers and a body (text or a live stream). */
export interface ProxyResponse {
  status: number;
  headers: Record<string, string>;
  body: string | ReadableStream<Uint8Array>;
}

/**
 * Proxies one chat completion: apply the request's config, resolve the target, run the input
 * guardrails, call the upstream, relay the answer (streams chunk by chunk), run the output
 * guardrails and fill in the request's log. Expected failures are results.
 */
export async function proxyChatCompletion(input: ChatProxyInput, deps: ChatProxyDeps): Promise<Result<ProxyResponse, GatewayError>> {
  const { log } = input;
  log.requestBody ??= input.rawBody ?? JSON.stringify(input.body);
  log.model = input.body.model;
  log.user = typeof input.body.user === "string" ? input.body.user : null;

  const config = await loadRequestConfig(input.headers.config, input.workspaceId, deps);
  if (!config.ok) return config;
  const settings = config.value;
  // The config's override_params win over the request's own fields.
  const overrideError = settings?.overrideParams ? overrideParamsError(settings.overrideParams) : null;
  if (overrideError) return fail(overrideError);
  const body = settings?.overrideParams ? { ...input.body, ...settings.overrideParams } : input.body;
  const stream = body.stream === true;
  log.stream = stream;

  const timeoutMs = requestTimeout(input.headers.timeout, settings?.requestTimeout ?? deps.defaultTimeoutMs);
  const target = await resolveChatTarget({ model: body.model, headers: input.headers, config: settings, workspaceId: input.workspaceId }, deps);
  if (!target.ok) return target;
  const { provider, model } = target.value;
  log.provider = provider.id;
  log.model = model;
  log.virtualKeyId = target.value.virtualKeyId;

  const inputGuardrails = await loadGuardrails(settings?.inputGuardrails, input.workspaceId, deps);
  if (!inputGuardrails.ok) return inputGuardrails;
  const outputGuardrails = await loadGuardrails(settings?.outputGuardrails, input.workspaceId, deps);
  if (!outputGuardrails.ok) return outputGuardrails;
  const hookResults: HookResults = { input: [], output: [] };
  const checkContext = { model, metadata: log.metadata, fetch: deps.fetch, checkUrl: deps.checkCustomHost, signal: input.clientSignal };
  const guarded = inputGuardrails.value.length + outputGuardrails.value.length > 0;
  if (guarded) log.guardrailResults = [];

  if (inputGuardrails.value.length > 0) {
    const outcome = await runGuardrailStage(inputGuardrails.value, { ...checkContext, text: inputText(body) }, "input");
    hookResults.input = outcome.results;
    log.guardrailResults?.push(...outcome.results);
    if (outcome.denied) return fail(guardrailDenial(hookResults, "input"));
  }
  const runOutputGuardrails = async (text: string): Promise<GatewayError | null> => {
    const outcome = await runGuardrailStage(outputGuardrails.value, { ...checkContext, text }, "output");
    hookResults.output = outcome.results;
    log.guardrailResults?.push(...outcome.results);
    return outcome.denied ? guardrailDenial(hookResults, "output") : null;
  };

  // The client's exact bytes go upstream unless the body changed (override_params) or input
  // guardrails judged it: those must judge what is sent, and raw text with a duplicate key
  // could read differently upstream than it did here.
  const rawBody = body === input.body && inputGuardrails.value.length === 0 ? input.rawBody : undefined;
  const request = buildChatRequest({ provider, baseUrl: target.value.baseUrl, credentials: target.value.credentials, body, model, rawBody });
  const called = await callUpstream(request, {
    timeoutMs,
    clientSignal: input.clientSignal,
    fetch: deps.fetch,
    providerName: provider.name,
  });
  if (!called.ok) return called;
  const call = called.value;
  const upstream = call.response;
  const passed = passedOnHeaders(upstream.headers);
  const headers = { "x-gateway-provider": provider.id, ...passed };
  const limits = { maxLoggedBytes: deps.maxLoggedBodyBytes, maxBufferedBytes: deps.maxResponseBufferBytes };

  const isEventStream = (upstream.headers.get("content-type") ?? "").includes("text/event-stream");
  if (upstream.ok && stream && isEventStream) {
    const dropUsageChunk = provider.streamUsage === "stream_options" && !clientWantsStreamUsage(body);
    const beforeDone = outputGuardrails.value.length > 0 ? (chunks: readonly string[]) => runOutputGuardrails(streamedText(chunks)) : undefined;
    return ok({
      status: 200,
      headers: { ...headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
      body: relayChatStream(call, log, { dropUsageChunk, beforeDone, ...limits }),
    });
  }

  if (upstream.status < 200 || upstream.status >= 300) {
    const text = await readErrorText(call);
    if (!text.ok) return text;
    log.markFirstToken();
    if (upstream.status >= 300 && upstream.status < 400) {
      return fail(new GatewayError("upstream_error", `${provider.name} answered with a redirect (HTTP ${upstream.status}), which the gateway does not follow.`));
    }
    return fail(upstreamErrorFromBody(upstream.status, text.value, provider.name, passed));
  }
  // Guardrail results go into the answer (`hook_results`), so a guarded answer is read whole.
  const answer = await readJsonAnswer(call, log, { whole: guarded, ...limits, providerName: provider.name, passedHeaders: passed });
  if (!answer.ok) return answer;
  const json = { ...headers, "content-type": "application/json" };
  if (answer.value.kind === "relayed") return ok({ status: upstream.status, headers: json, body: answer.value.body });
  let { text } = answer.value;
  if (guarded) {
    const completion = answer.value.value;
    if (outputGuardrails.value.length > 0) {
      const denied = await runOutputGuardrails(outputText(completion));
      if (denied) return fail(denied);
    }
    text = JSON.stringify({ ...completion, hook_results: hookResults });
  }
  return ok({ status: upstream.status, headers: json, body: text });
}

/** The assistant text of a streamed completion, assembled from its chunks. */
function streamedText(chunks: readonly string[]): string {
  const assembler = createChatStreamAssembler();
  for (const chunk of chunks) assembler.add(parseObject(chunk));
  return outputText(assembler.result().completion as Record<string, unknown>);
}
