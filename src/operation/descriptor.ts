/**
 * An operation the gateway proxies (chat completions, embeddings, the pass-through…), told to
 * the core by a small descriptor in its route file, whose id and method come from the document's
 * generated route. `proxyOperation` runs them all.
 */
import { GatewayError } from "../errors.ts";
import type { AnswerReader } from "./answer-reader.ts";
import type { StreamEvent, StreamTranslator } from "../streams/stream-protocol.ts";
import type { JsonObject } from "../providers/provider.ts";

/**
 * Everything the gateway knows of one operation: how its request is read and sent, how its
 * answer is relayed, logged, cached and named in telemetry, what a config may change in it and
 * what guardrails judge. No other module keeps a table by operationId.
 */
export interface OperationDescriptor {
  /** The operationId: the log's route, and the key of a provider's transforms. */
  id: string;
  /** The upstream request's method; `*`: the client's (the pass-through). */
  method: string;
  /**
   * Where the request goes under the provider's base URL (`resolveUpstream`, below), unless the
   * provider's transform names its own path.
   */
  upstreamPath: UpstreamPath;
  /**
   * `json`: parsed once, checked, sent as the client's exact bytes unless something changed it;
   * `as-sent`: passed upstream as it arrives (multipart, binary), with its content type;
   * `json-or-as-sent`: `json` when the client sends JSON, else `as-sent` (a multipart form, any other body);
   * `none`: no body.
   */
  body: "json" | "as-sent" | "json-or-as-sent" | "none";
  /**
   * `json`: a JSON object (or server-sent events when the request streams), checked before the
   * client gets it; `as-sent`: relayed as it arrives whatever its type (server-sent events still
   * go event by event).
   */
  answer: "json" | "as-sent";
  /**
   * True when the operation's streams may end where the bytes end, with no end event (the
   * pass-through, whose upstream paths have their own conventions); otherwise a stream that
   * stops short of its provider's end event is cut and ends with an error event.
   */
  streamEndsAtEof?: boolean;
  /**
   * The operation's own end events, for streams whose framing has no end marker (the Responses
   * API's `response.completed`): nothing after one is read, it is logged like any event, and it
   * reaches the client only once output guardrails have judged the stream.
   */
  isStreamEnd?(event: StreamEvent): boolean;
  /**
   * True when only providers with transforms for this operation serve it (Anthropic's token
   * counting): an OpenAI-format provider, which would otherwise get the request as it is,
   * answers 400 naming itself.
   */
  nativeOnly?: boolean;
  /**
   * Set when the client speaks another format than the operation the upstream serves (Anthropic
   * Messages in, chat completions out). The route hands the core the translated request; the
   * providers' transforms of `via` run as for that operation, then these translate every answer
   * (after the provider's own transforms) before the client, the log and the cache see it.
   */
  translated?: AnswerTranslation;
  /**
   * Set on the operations on one stored response by its id (read, delete, cancel, input items).
   * A provider that keeps no responses of its own (one served through its chat translation) has
   * none upstream: the gateway keeps them, and its route answered a kept one before the pipeline,
   * so on such a provider the id is unknown (404), not an operation it cannot serve (400).
   */
  onStoredResponse?: true;
  /** How the log reads the answer's model and usage (and assembles a stream), and prices what tokens do not. */
  answers: AnswerReader;
  /**
   * Whether the answer cache may keep and serve its answer to a body: why not, or null. Without
   * it the operation is never cached (uploads, side effects upstream, expiring URLs, binaries).
   */
  cache?: CacheRule;
  /**
   * What a semantic cache compares by meaning: the body's last user turn. Without it (or when it
   * returns null) the operation is cached by exact match only, even in `semantic` mode.
   */
  semantic?: SemanticSplit;
  /**
   * `gen_ai.operation.name` of its spans (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/).
   * Without it the operation is no GenAI call and its spans carry no `gen_ai.*` attributes.
   */
  genAiOperation?: GenAiOperationName;
  /**
   * Checks a config's `override_params` before they are merged into a JSON body. Without it, a
   * config with `override_params` is refused (400) for a JSON body rather than sent unchecked.
   */
  overrides?: OverridesRule;
  /**
   * The text guardrails judge. An operation without it refuses configs that attach guardrails
   * (400) rather than serve them unchecked.
   */
  guardrails?: {
    input(body: JsonObject): string;
    /** The answer's text; without it, output guardrails are refused. */
    output?(answer: JsonObject): string;
    /** A stream's text from the logged events' data; without it, streams refuse output guardrails. */
    streamOutput?(chunks: readonly string[]): string;
  };
}

/**
 * Where an operation goes under the provider's base URL:
 * - `fixed`: always this path;
 * - `afterV1`: the path the client used after `/v1`, with its query, refused (400) when it could
 *   leave the base URL (dot segments, encoded slashes or backslashes, empty segments);
 * - `template`: `{name}` placeholders filled from the route's path parameters, each one segment
 *   (refused, 400, when it is empty, a dot segment or holds a slash or backslash) and encoded,
 *   followed by the client's query.
 */
export type UpstreamPath = { fixed: string } | { afterV1: true } | { template: string };

/** Why a body's answer may not be cached (`store`, `background`…), or null when it may. Pure. */
export type CacheRule = (body: JsonObject) => string | null;

/** Every body's answer may be cached (completions, embeddings): it depends on the request alone. */
export const alwaysCacheable: CacheRule = () => null;

/** Whether the operation's answer to this body may be cached: a JSON body its rule accepts. */
export function isCacheable(operation: Pick<OperationDescriptor, "cache">, body: JsonObject | null): boolean {
  return operation.cache !== undefined && body !== null && operation.cache(body) === null;
}

/**
 * A body split for the semantic cache: `text`, its last user turn, compared by embedding; `rest`,
 * the body with that turn's text taken out, which must match exactly (earlier turns, system
 * prompt, model, parameters, tools). Null when the body has no last user turn of plain text. Pure.
 */
export type SemanticSplit = (body: JsonObject) => { text: string; rest: JsonObject } | null;

/** Null when `override_params` leave a valid body valid once merged in; else the 400 to answer. Never throws. */
export type OverridesRule = (overrides: Record<string, unknown>) => GatewayError | null;

/** The GenAI conventions' operation names the gateway's operations map to. */
export type GenAiOperationName = "chat" | "text_completion" | "embeddings" | "generate_content";

/** The answer half of a client format the gateway translates (`OperationDescriptor.translated`). Pure. */
export interface AnswerTranslation {
  /** The operation whose provider transforms serve the translated request. */
  via: string;
  /** A successful JSON answer of `via`, in the client's format. */
  response(answer: JsonObject): JsonObject;
  /**
   * A new translator of `via`'s stream events (as the provider's translator gives them) into the
   * client's; absent for a format that never streams (embeddings).
   */
  stream?(clientBody: JsonObject): StreamTranslator;
}

/** The operation whose provider transforms serve this one. */
export function transformsKey(operation: OperationDescriptor): string {
  return operation.translated?.via ?? operation.id;
}

/** What a route knows of the request that picks where it goes upstream. */
export interface RequestPath {
  method: string;
  url: URL;
  /** The route's path parameters, decoded. */
  params: Readonly<Record<string, string>>;
}

/** Where one request goes: its method, and its path under the provider's base URL. */
export interface UpstreamRoute {
  method: string;
  path: string;
}

/**
 * Where one request of an operation goes, by the operation's rules: its method (the client's for
 * `*`) and path (`UpstreamPath`). A path that could leave the base URL is refused: throws a 400
 * `GatewayError`.
 */
export function resolveUpstream(operation: Pick<OperationDescriptor, "method" | "upstreamPath">, request: RequestPath): UpstreamRoute {
  return { method: operation.method === "*" ? request.method : operation.method, path: resolvePath(operation.upstreamPath, request) };
}

/** True when every request of the operation goes to the same method and path. */
export function isFixedUpstream(operation: Pick<OperationDescriptor, "method" | "upstreamPath">): boolean {
  return "fixed" in operation.upstreamPath && operation.method !== "*";
}

/** True for a template without parameters: a request without a query goes to its path as it is. */
export function isPlainTemplate(operation: Pick<OperationDescriptor, "method" | "upstreamPath">): boolean {
  return "template" in operation.upstreamPath && !operation.upstreamPath.template.includes("{") && operation.method !== "*";
}

/**
 * Where every request of an operation with a fixed method and path goes. For one resolved per
 * request the route passes the resolved route, so meeting one here is a bug: throws.
 */
export function fixedUpstream(operation: Pick<OperationDescriptor, "id" | "method" | "upstreamPath">): UpstreamRoute {
  if (isFixedUpstream(operation) && "fixed" in operation.upstreamPath) return { method: operation.method, path: operation.upstreamPath.fixed };
  if (isPlainTemplate(operation) && "template" in operation.upstreamPath) return { method: operation.method, path: operation.upstreamPath.template };
  throw new Error(`${operation.id} resolves its upstream method or path per request: its route must pass them.`);
}

function resolvePath(rule: UpstreamPath, request: RequestPath): string {
  if ("fixed" in rule) return rule.fixed;
  if ("afterV1" in rule) return pathAfterV1(request.url);
  return fillTemplate(rule.template, request.params) + request.url.search;
}

/**
 * The request's path after `/v1`, with its query. Dot segments (also percent-encoded), encoded
 * slashes and backslashes and empty segments are refused (400), so the path stays under the
 * provider's base URL.
 */
export function pathAfterV1(url: URL): string {
  const rest = url.pathname.slice("/v1".length);
  if (/(^|\/)(\.|%2e){1,2}(\/|$)/i.test(rest) || /\\|%5c|%2f/i.test(rest) || rest.includes("//")) {
    throw new GatewayError("invalid_request", "The path may not hold dot segments, backslashes, encoded slashes or empty segments.", { param: "path" });
  }
  return `${rest}${url.search}`;
}

/** `{name}` placeholders of `template` filled with the parameters, each checked and encoded as one segment. */
function fillTemplate(template: string, params: Readonly<Record<string, string>>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`The upstream path ${template} names ${name}, which the route does not have.`);
    if (value === "" || value === "." || value === ".." || /[/\\]/.test(value)) {
      throw new GatewayError("invalid_request", `The path parameter ${name} may not be empty, a dot segment or hold a slash or backslash.`, { param: name });
    }
    // Encoded as one segment; the characters a segment may hold as they are (`ft:model:org::id`) stay so.
    return encodeURIComponent(value).replace(/%(3A|40|21|24|26|27|28|29|2A|2B|2C|3B|3D)/g, (escape) => decodeURIComponent(escape));
  });
}
