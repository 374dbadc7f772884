/**
 * What a provider is to the proxy core: data (where it lives, how it authenticates) plus
 * optional pure transforms per operation. The core never names a provider; it looks up the
 * transforms of the operation it runs and otherwise passes requests and answers as they are.
 */
import { GatewayError } from "../errors.ts";
import type { StreamProtocol, StreamTranslator } from "../streams/stream-protocol.ts";
import type { FetchLike, UpstreamRequest } from "../net/upstream-call.ts";
import type { BatchTransforms } from "./batch.ts";

// The request a provider builds and signs is the one the upstream call sends: part of this contract.
export type { UpstreamRequest };

/** What the gateway lends `authorize`. */
export interface AuthorizeContext {
  fetch: FetchLike;
}

/** A JSON object body (request or answer). */
export type JsonObject = Record<string, unknown>;

/** A provider's 2xx answer a response transform cannot turn into the client's answer: the gateway's error for it. */
export interface UnusableAnswer {
  unusable: GatewayError;
}

/** True for a response transform's `UnusableAnswer` (an answer object never holds a GatewayError). */
export function isUnusableAnswer(value: JsonObject | UnusableAnswer): value is UnusableAnswer {
  return (value as UnusableAnswer).unusable instanceof GatewayError;
}

/**
 * The upstream credentials of one target, by auth style. Each style is what one family of
 * providers needs to authorise a request; a provider reads only its own.
 */
export type Credentials = BearerCredentials;

/** OpenAI-style: `Authorization: Bearer <key>`, with optional organisation and project headers. */
export interface BearerCredentials {
  style: "bearer";
  apiKey: string | null;
  organization: string | null;
  project: string | null;
  /**
   * The provider's own credential fields (`Provider.credentialFields`: an AWS region and secret,
   * an Azure API version…), by field name; empty for providers that declare none.
   */
  fields: Readonly<Record<string, string>>;
}

/**
 * A credential field a provider needs beyond the key, sent by the client in its own header
 * (`x-gateway-aws-region`). Values are checked against `pattern` before any use, since some
 * (a region) become part of the upstream's host name.
 */
export interface CredentialField {
  name: string;
  header: string;
  /** A secret is never logged or shown (a session token, a secret access key). */
  secret: boolean;
  pattern: RegExp;
  description: string;
}

/**
 * How an OpenAI-format provider's streams give their final usage: `stream_options` answers
 * `include_usage`; `always` sends usage unasked (and may refuse `stream_options`).
 */
export type StreamUsage = "stream_options" | "always";

/**
 * Chat completion fields an OpenAI-format provider does not take, from its docs
 * (`openai/chat.ts`). A field is "sent" when present and not null; `messages[].name`
 * stands for a `name` on any message.
 */
export interface ChatFieldRules {
  /** Fields the provider refuses: a request sending one is a 400 naming it and the provider. */
  refuse?: readonly string[];
  /** Fields the provider takes at one value only (Groq's `n`: 1): any other is refused. */
  only?: Readonly<Record<string, string | number | boolean>>;
  /** Fields the provider's docs say it does not take and that are safe to leave out: removed. */
  drop?: readonly string[];
}

/** The pure transforms of one operation for one provider; each is optional. */
export interface OperationTransforms {
  /**
   * The body to send (the same object when nothing changes, so the client's exact bytes can go)
   * and, when the provider's path differs from the operation's, that path; or the 400 for a
   * request the provider cannot serve as asked (a built-in tool it cannot run, an image URL
   * Bedrock cannot fetch), naming the field.
   */
  request?(body: JsonObject, context: { model: string; stream: boolean }): { body: JsonObject; path?: string } | { error: GatewayError };
  /**
   * A successful JSON answer in the client's format; `clientBody` is the request as the client
   * sent it, `model` the model as the target sent it. Or the error for a 2xx answer that does not
   * hold what the request asked for (an embedding per input, an image), which the client gets
   * instead of an answer that silently lacks it.
   */
  response?(answer: JsonObject, context: { clientBody: JsonObject; model: string }): JsonObject | UnusableAnswer;
  /** A new translator of the provider's stream events into the client's, one per stream. */
  stream?(clientBody: JsonObject, context: { model: string }): StreamTranslator;
}

export interface Provider {
  id: string;
  name: string;
  /** The providers reached the same way (`GET /v1/providers`): `openai` for the OpenAI-format catalogue's entries; absent: a family of its own, its id. */
  family?: string;
  /** Default base URL (the operation's path is appended); null when only a custom host makes sense. */
  baseUrl: string | null;
  /**
   * Whether a custom host must be written with a path (the API's base path, such as `/v1`), since
   * operation paths are appended to it. Absent: whether `baseUrl` has one.
   */
  customHostNeedsPath?: boolean;
  docs: string;
  /**
   * True when the provider speaks the OpenAI format: operations without transforms here pass
   * as they are. False: only the operations listed in `operations` can reach it.
   */
  openaiFormat: boolean;
  operations: Readonly<Record<string, OperationTransforms>>;
  /** An OpenAI-format provider's chat completions: how its streams report usage, the fields it does not take. */
  chatRules?: { streamUsage: StreamUsage; fields: ChatFieldRules };
  /** How the provider's streams are framed, end and report errors. */
  streamProtocol: StreamProtocol;
  /**
   * Set for a provider that searches the web itself when asked with chat's `web_search_options`
   * (`web-search.ts`): the searches one of its answers made, for Responses `web_search_call`
   * items (`streamSearches` reads them from one stream's events, each query once as it is known).
   * Absent: a web search tool is refused with a 400 naming the provider.
   */
  webSearch?: { queries(answer: JsonObject): string[]; streamSearches(): (data: string) => string[] };
  /**
   * The provider's own batch API, for the gateway's unified batches (`POST /v1/batches` over a
   * file the gateway keeps); absent: batches pass to the provider as OpenAI's.
   */
  batch?: BatchTransforms;
  /** Credential fields beyond the key (absent: none). */
  credentialFields?: readonly CredentialField[];
  /**
   * The key is a document `authorize` exchanges for a token (Vertex AI's service-account JSON),
   * never sent as a header value: it may hold line breaks and spaces. Absent: the key is sent
   * as it is, so it must be printable ASCII.
   */
  keyIsDocument?: boolean;
  /**
   * The base URL when it depends on credential fields (a region's endpoint); null when they do
   * not give one. Used when no custom host is set, before `baseUrl`.
   */
  baseUrlFrom?(fields: Readonly<Record<string, string>>): string | null;
  /** What `baseUrlFrom` gives, for people (`GET /v1/providers`): `{field}` stands for each credential field. */
  baseUrlTemplate?: string;
  /**
   * Every host `baseUrlFrom` can give, all on the provider's own domain. Like `baseUrl`'s host,
   * their DNS is trusted: connections to them are not pinned by the SSRF guard, so a cloud
   * provider's private endpoint (resolving to a private address) keeps working.
   */
  baseUrlHosts?: RegExp;
  /**
   * The provider's path for an operation's path (query included), for every operation and body
   * kind: Azure OpenAI puts the deployment in the path and the API version in the query. A
   * transform's own `path` is passed through it too. A `GatewayError` refuses the request.
   */
  upstreamPath?(path: string, context: { model: string | null; fields: Readonly<Record<string, string>> }): string | GatewayError;
  /**
   * Adds the credentials to a final request; may sign it. Pure apart from the clock a signature
   * reads. Credentials that cannot authorise the request (a signature without its region) are a
   * `GatewayError` naming what is missing. `context.fetch` is the gateway's pinned fetch, for a
   * provider that calls out itself before the request (Vertex AI's token exchange on the
   * upstream's host): it connects only where the SSRF guard allows.
   */
  authorize(request: UpstreamRequest, credentials: Credentials, context?: AuthorizeContext): UpstreamRequest | GatewayError | Promise<UpstreamRequest | GatewayError>;
  /**
   * An upstream error answer (status and body text) as the gateway's error. Never throws.
   * `headers` go to the client with it; `answerHeaders` are all the answer's, to read (Bedrock
   * names its error in `x-amzn-errortype`).
   */
  error(status: number, text: string, headers: Readonly<Record<string, string>>, answerHeaders?: Headers): GatewayError;
}
