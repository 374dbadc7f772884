import { fail, GatewayError, ok, type Result } from "../errors.ts";
import { isUnusableAnswer, type JsonObject } from "../providers/provider.ts";
import type { PendingEnding } from "../logging/outcome.ts";
import { capText } from "../lib/body-capture.ts";
import type { HookResults } from "./guardrail-stage.ts";
import { readErrorText, readJsonAnswer, relayAsSent, type AnswerRefusal } from "./json-answer.ts";
import { transformsKey, type OperationDescriptor } from "../operation/descriptor.ts";
import type { ProxyResponse } from "../operation/proxy-response.ts";
import type { StreamEvent, StreamProtocol } from "../streams/stream-protocol.ts";
import type { Answered } from "./routing-loop.ts";
import { relayStream } from "./stream-relay.ts";
import { chainTranslators, openaiSseProtocol } from "../streams/stream-protocol.ts";
import { passedOnHeaders } from "../net/header-rules.ts";

/** Success statuses whose answers carry no body (a 204 from a delete). */
const NO_BODY_STATUSES: ReadonlySet<number> = new Set([204, 205]);

export interface AnswerContext {
  operation: OperationDescriptor;
  /** The client's JSON body, when it sent one (stream translators read it). */
  clientBody: JsonObject | null;
  /** The client asked for a stream. */
  stream: boolean;
  maxLoggedBytes: number;
  maxBufferedBytes: number;
  /** A stream's client that takes nothing for this long is cut off (`GATEWAY_STREAM_STALL_TIMEOUT_MS`). */
  stallTimeoutMs?: number;
  /** Called as a relayed stream ends, before its last bytes go out. */
  beforeStreamEnds?: () => void;
  /** Set when guardrails ran: their results go into a JSON answer as `hook_results`. */
  hookResults: HookResults | null;
  /** Output guardrails on the answer's text; null when there are none. */
  judgeOutput: ((text: string) => Promise<GatewayError | null>) | null;
}

/** The client's answer, and how it ended (a relayed body's once relayed). */
export interface Answer {
  response: ProxyResponse;
  ending: PendingEnding;
}

/** An upstream answer not passed on; `attemptFailed` when it was the upstream's own error, which its attempt records. */
export type AnswerFailure = AnswerRefusal & { attemptFailed?: boolean };

/**
 * The client's answer from the upstream's: a stream relayed event by event through the
 * provider's protocol and translator (then the operation's, for a client format the gateway
 * translates), an error mapped by the provider, a JSON answer checked (and translated by both,
 * and judged), anything else relayed as it arrives.
 */
export async function answerFrom({ candidate, call, retries }: Answered, context: AnswerContext): Promise<Result<Answer, AnswerFailure>> {
  const { operation } = context;
  const { provider } = candidate.target;
  const transforms = call.clientFormat ? undefined : provider.operations[transformsKey(operation)];
  const protocol = call.clientFormat ? openaiSseProtocol : provider.streamProtocol;
  const upstream = call.response;
  const passed = passedOnHeaders(upstream.headers);
  const headers: Record<string, string> = {
    "x-gateway-provider": provider.id,
    "x-gateway-retry-attempt-count": String(retries),
    "x-gateway-last-used-option-index": candidate.path === "" ? "0" : candidate.path,
    ...passed,
  };
  const contentType = upstream.headers.get("content-type") ?? "";
  const limits = { maxLoggedBytes: context.maxLoggedBytes, maxBufferedBytes: context.maxBufferedBytes };

  // A body passed as it arrives (a multipart image edit) is never read for its `stream` field: the
  // upstream's content type tells.
  const asSent = operation.body === "as-sent" || (operation.body === "json-or-as-sent" && context.clientBody === null);
  const streamed = context.stream || operation.answer === "as-sent" || asSent;
  if (upstream.ok && contentType.startsWith(protocol.contentType) && streamed) {
    const { judgeOutput } = context;
    const streamOutput = operation.guardrails?.streamOutput;
    const beforeEnd = judgeOutput && streamOutput ? (chunks: readonly string[]) => judgeOutput(streamOutput(chunks)) : undefined;
    const clientBody = context.clientBody ?? {};
    const own = transforms?.stream?.(clientBody, { model: candidate.target.model ?? "" }) ?? null;
    const translating = operation.translated?.stream?.(clientBody);
    const translator = translating ? chainTranslators(own, translating) : own;
    const relayed = relayStream(call, {
        protocol,
        // The operation's own end at EOF is its format's: a stream the provider's translator reads
        // (Cohere's, Anthropic's) ends only as the provider's protocol says, else it was cut short.
        endsAtEof: protocol.endsAtEof || (operation.streamEndsAtEof === true && own === null),
        isOperationEnd: lastEvent(operation, protocol),
        translator,
        beforeEnd,
        stallTimeoutMs: context.stallTimeoutMs,
        onEnd: context.beforeStreamEnds,
        ...limits,
      });
    const streamHeaders = { ...headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" };
    return ok({ response: { status: 200, headers: streamHeaders, body: relayed.body }, ending: relayed.ended });
  }

  if (upstream.status < 200 || upstream.status >= 300) {
    const text = await readErrorText(call);
    if (!text.ok) return fail({ error: text.error, refused: { answeredAt: null, response: null } });
    const answeredAt = performance.now();
    // The upstream may echo the credentials it was sent: neither the client nor the log sees them.
    const error =
      upstream.status >= 300 && upstream.status < 400
        ? new GatewayError("upstream_error", `${provider.name} answered with a redirect (HTTP ${upstream.status}), which the gateway does not follow.`)
        : provider.error(upstream.status, call.scrub(text.value), scrubbedValues(passed, call.scrub), upstream.headers);
    return fail({ error, refused: { answeredAt, response: null }, attemptFailed: true });
  }

  if (NO_BODY_STATUSES.has(upstream.status)) {
    call.done();
    void upstream.body?.cancel().catch(() => undefined);
    return ok({ response: { status: upstream.status, headers, body: "" }, ending: { status: upstream.status, error: null, response: null, firstTokenAt: performance.now() } });
  }

  // A translated or judged answer is read whole; the usual one is checked and passed as it came.
  const translated = transforms?.response !== undefined || operation.translated !== undefined;
  const whole = context.hookResults !== null || translated;
  // An answer nothing reads is the upstream's to shape: one that says it is not JSON goes as it is.
  if (operation.answer === "as-sent" || (!whole && labelledNotJson(contentType))) {
    const textual = /json|^text\//.test(contentType);
    const sentHeaders: Record<string, string> = { ...headers };
    for (const name of ["content-type", "content-disposition"]) {
      const value = upstream.headers.get(name);
      if (value !== null) sentHeaders[name] = value;
    }
    const relayed = relayAsSent(call, { maxLoggedBytes: context.maxLoggedBytes, textual, contentType });
    return ok({ response: { status: upstream.status, headers: sentHeaders, body: relayed.body }, ending: relayed.ended });
  }

  const answer = await readJsonAnswer(call, { whole, emptyAllowed: !translated, ...limits, providerName: provider.name, passedHeaders: passed });
  if (!answer.ok) return answer;
  // An empty answer (a delete's 200, a 204) is relayed empty, with the upstream's own type if it named one.
  if (answer.value.kind === "empty") {
    const emptyHeaders = contentType ? { ...headers, "content-type": contentType } : headers;
    const ending = { status: upstream.status, error: null, response: answer.value.logged, firstTokenAt: answer.value.answeredAt };
    return ok({ response: { status: upstream.status, headers: emptyHeaders, body: "" }, ending });
  }
  const json = { ...headers, "content-type": "application/json" };
  if (answer.value.kind === "relayed") return ok({ response: { status: upstream.status, headers: json, body: answer.value.body }, ending: answer.value.ended });
  const { answeredAt } = answer.value;
  let logged = answer.value.logged;
  const ending = () => ({ status: upstream.status, error: null, response: logged, firstTokenAt: answeredAt });
  if (!whole) return ok({ response: { status: upstream.status, headers: json, body: answer.value.text }, ending: ending() });
  const provided = transforms?.response ? transforms.response(answer.value.value, { clientBody: context.clientBody ?? {}, model: candidate.target.model ?? "" }) : answer.value.value;
  // A 2xx answer without what was asked for fails its attempt, as an upstream error does.
  if (isUnusableAnswer(provided)) return fail({ error: provided.unusable, refused: { answeredAt, response: logged }, attemptFailed: true });
  const value = operation.translated ? operation.translated.response(provided) : provided;
  if (translated) {
    // The log keeps the answer as the client gets it.
    const kept = capText(JSON.stringify(value), context.maxLoggedBytes);
    logged = { kind: "json-text", text: kept.text, totalBytes: kept.totalBytes, truncated: kept.truncated, tail: null };
  }
  if (context.judgeOutput && operation.guardrails?.output) {
    const denied = await context.judgeOutput(operation.guardrails.output(value));
    if (denied) return fail({ error: denied, refused: { answeredAt, response: logged } });
  }
  const body = context.hookResults ? { ...value, hook_results: context.hookResults } : value;
  return ok({ response: { status: upstream.status, headers: json, body: JSON.stringify(body) }, ending: ending() });
}

/** The passed-on headers with credentials scrubbed from their values. */
function scrubbedValues(headers: Record<string, string>, scrub: (text: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, scrub(value)]));
}

/** The events after which nothing is read but which are still translated: the operation's own, and the protocol's last one. */
function lastEvent(operation: OperationDescriptor, protocol: StreamProtocol): ((event: StreamEvent) => boolean) | undefined {
  const { isStreamEnd } = operation;
  const { isLast } = protocol;
  if (!isStreamEnd || !isLast) return isStreamEnd ?? isLast;
  return (event) => isStreamEnd(event) || isLast(event);
}

/** True when the upstream labelled its answer with a type other than JSON (unlabelled answers are read as JSON). */
function labelledNotJson(contentType: string): boolean {
  return contentType !== "" && !/^application\/([a-z0-9.+-]*\+)?json\b/i.test(contentType.trim());
}
