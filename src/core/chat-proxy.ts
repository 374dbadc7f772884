import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { RequestLog } from "../logging/request-log.ts";
import { buildChatRequest, clientWantsStreamUsage } from "../providers/openai/chat-request.ts";
import { upstreamErrorFromBody } from "../providers/openai/upstream-error.ts";
import { resolveChatTarget, type TargetHeaders, type TargetResolverDeps } from "./chat-target.ts";
import { relayChatStream } from "./chat-stream-relay.ts";
import { callUpstream, type FetchLike } from "./upstream-call.ts";

export interface ChatProxyDeps extends TargetResolverDeps {
  fetch: FetchLike;
  defaultTimeoutMs: number;
}

export interface ChatProxyInput {
  body: Record<string, unknown> & { model: string };
  headers: TargetHeaders & { timeout?: string };
  clientSignal?: AbortSignal;
  log: RequestLog;
}

/** What the route sends back: status, headers and a body (text or a live stream). */
export interface ProxyResponse {
  status: number;
  headers: Record<string, string>;
  body: string | ReadableStream<Uint8Array>;
}

function timeoutFrom(raw: string | undefined, fallback: number): Result<number, GatewayError> {
  if (raw === undefined) return ok(fallback);
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    return fail(new GatewayError("invalid_request", "x-gateway-request-timeout must be a positive integer (ms).", { param: "x-gateway-request-timeout" }));
  }
  return ok(value);
}

/**
 * Proxies one chat completion: resolve the target, call the upstream, relay the answer
 * (streams chunk by chunk) and fill in the request's log. Expected failures are results.
 */
export async function proxyChatCompletion(input: ChatProxyInput, deps: ChatProxyDeps): Promise<Result<ProxyResponse, GatewayError>> {
  const { body, log } = input;
  const stream = body.stream === true;
  log.requestBody = body;
  log.model = body.model;
  log.stream = stream;
  log.user = typeof body.user === "string" ? body.user : null;

  const timeout = timeoutFrom(input.headers.timeout, deps.defaultTimeoutMs);
  if (!timeout.ok) return timeout;
  const target = await resolveChatTarget(input.headers, body.model, deps);
  if (!target.ok) return target;
  const { provider, model } = target.value;
  log.provider = provider.id;
  log.model = model;
  log.virtualKeyId = target.value.virtualKeyId;

  const request = buildChatRequest({ provider, baseUrl: target.value.baseUrl, credentials: target.value.credentials, body, model });
  const called = await callUpstream(request, {
    timeoutMs: timeout.value,
    clientSignal: input.clientSignal,
    fetch: deps.fetch,
    providerName: provider.name,
  });
  if (!called.ok) return called;
  const call = called.value;
  const upstream = call.response;
  const headers = { "x-gateway-provider": provider.id };

  const isEventStream = (upstream.headers.get("content-type") ?? "").includes("text/event-stream");
  if (upstream.ok && stream && isEventStream) {
    const dropUsageChunk = provider.streamUsage === "stream_options" && !clientWantsStreamUsage(body);
    return ok({
      status: 200,
      headers: { ...headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
      body: relayChatStream(call, log, { dropUsageChunk }),
    });
  }

  let text: string;
  try {
    text = await upstream.text();
  } catch (error) {
    return fail(call.classify(error));
  } finally {
    call.done();
  }
  log.markFirstToken();
  if (upstream.status >= 300 && upstream.status < 400) {
    return fail(new GatewayError("upstream_error", `${provider.name} answered with a redirect (HTTP ${upstream.status}), which the gateway does not follow.`));
  }
  if (!upstream.ok) return fail(upstreamErrorFromBody(upstream.status, text, provider.name));
  log.response = { kind: "json-text", text };
  return ok({ status: upstream.status, headers: { ...headers, "content-type": "application/json" }, body: text });
}
