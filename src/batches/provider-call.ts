/**
 * One call to a provider's batch API: the request the provider's batch transform describes,
 * authorised as the provider authorises its chat calls, on the target's base URL.
 */
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { FetchLike } from "../net/upstream-call.ts";
import type { BatchCall, BatchStorage } from "../providers/batch.ts";
import type { UpstreamRequest } from "../net/upstream-call.ts";
import type { JsonObject } from "../providers/provider.ts";
import type { Target } from "../operation/target.ts";
import { credentialScrubber } from "../net/sent-credentials.ts";

export interface ProviderCallDeps {
  fetch: FetchLike;
  timeoutMs: number;
  /** The largest answer to a job's create, read or cancel. */
  maxAnswerBytes: number;
  /** The largest results file read back. */
  maxResultsBytes: number;
}

/** How much of an error answer is read: enough for any provider's message. */
const MAX_ERROR_BYTES = 1024 * 1024;

/** Which bound an answer is read under. */
export type AnswerKind = "answer" | "results";

/**
 * The answer's text, or the provider's error as the gateway's. An absolute `call.path` is used
 * only on the target's own origin, so a URL the provider names (a results URL) never takes the
 * credentials elsewhere; on another origin `fallback` is called instead.
 */
export async function callProvider(target: Target, call: BatchCall, deps: ProviderCallDeps, kind: AnswerKind, fallback?: BatchCall): Promise<Result<string, GatewayError>> {
  const url = urlOf(target, call, fallback);
  const unsigned = { method: call.method, url, headers: { accept: "application/json", ...(call.body && { "content-type": "application/json" }) }, body: call.body ? JSON.stringify(call.body) : null };
  const request = await target.provider.authorize(unsigned, target.credentials, { fetch: deps.fetch });
  if (request instanceof GatewayError) return fail(request);
  return send(target, request, deps, kind);
}

/**
 * Writes or reads one object of a batch's storage (`BatchStorage`), the request signed by the
 * provider's storage transform; a read answers the object's text.
 */
export async function callStorage(
  target: Target,
  call: Parameters<BatchStorage["request"]>[0],
  place: Readonly<Record<string, string>>,
  deps: ProviderCallDeps,
): Promise<Result<string, GatewayError>> {
  const storage = target.provider.batch?.storage;
  if (!storage) return fail(new GatewayError("internal_error", `${target.provider.name} keeps no batch storage.`));
  const built = await storage.request(call, place, { baseUrl: target.baseUrl, apiKey: target.credentials.apiKey, fields: target.credentials.fields });
  if (built instanceof GatewayError) return fail(built);
  const request = storage.authorizedByProvider ? await target.provider.authorize(built, target.credentials, { fetch: deps.fetch }) : built;
  if (request instanceof GatewayError) return fail(request);
  return send(target, request, deps, call.method === "GET" && call.object === "results" ? "results" : "answer");
}

async function send(target: Target, request: UpstreamRequest, deps: ProviderCallDeps, kind: AnswerKind): Promise<Result<string, GatewayError>> {
  let response: Response;
  let text: string | null;
  const abort = new AbortController();
  try {
    const signal = AbortSignal.any([abort.signal, AbortSignal.timeout(deps.timeoutMs)]);
    response = await deps.fetch(request.url, { method: request.method, headers: request.headers, body: request.body, signal });
    const maxBytes = !response.ok ? MAX_ERROR_BYTES : kind === "results" ? deps.maxResultsBytes : deps.maxAnswerBytes;
    text = await boundedText(response, maxBytes, !response.ok);
    // An answer past its bound is not read on: the connection is cut.
    if (text === null) abort.abort();
  } catch (error) {
    const timedOut = error instanceof Error && error.name === "TimeoutError";
    return fail(new GatewayError(timedOut ? "request_timeout" : "upstream_unreachable", `${target.provider.name} could not be reached for the batch.`));
  }
  if (text === null) return fail(new GatewayError("upstream_error", `${target.provider.name} answered the batch call with more than ${kind === "results" ? "GATEWAY_MAX_UPLOAD_BYTES" : "GATEWAY_MAX_RESPONSE_BUFFER_BYTES"} bytes.`));
  // The provider (or a proxy before it) may quote the credentials it was sent: the client and the log never see them.
  if (!response.ok) return fail(target.provider.error(response.status, credentialScrubber(request)(text), {}, response.headers));
  return ok(text);
}

/**
 * The answer's text, read up to `maxBytes`: past it, null (or, for an error answer, which only
 * needs its message, the text cut there).
 */
async function boundedText(response: Response, maxBytes: number, cut: boolean): Promise<string | null> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      void reader.cancel().catch(() => undefined);
      if (!cut) return null;
      break;
    }
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, maxBytes));
}

/** A JSON object answer, or a 502 saying the provider answered something else. */
export function jsonAnswer(text: string, target: Target): Result<JsonObject, GatewayError> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return ok(parsed as JsonObject);
  } catch {
    // Refused below.
  }
  return fail(new GatewayError("upstream_error", `${target.provider.name} answered the batch call with something other than a JSON object.`));
}

function urlOf(target: Target, call: BatchCall, fallback: BatchCall | undefined): string {
  const base = (target.provider.batch?.apiBase?.(target.baseUrl) ?? target.baseUrl).replace(/\/$/, "");
  if (!/^https?:\/\//i.test(call.path)) return `${base}${call.path}`;
  if (new URL(call.path).origin === new URL(base).origin) return call.path;
  return fallback ? urlOf(target, fallback, undefined) : `${base}/`;
}
