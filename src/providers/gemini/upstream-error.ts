/**
 * Google's error answers as the gateway's error (pure, never throws). Google writes
 * `{"error": {"code", "message", "status", "details"}}` (sometimes inside a one-element array);
 * the message is kept, the status string becomes the envelope's `code` and picks the OpenAI
 * `type`. The HTTP status is kept, except that a key Google refuses (400 with reason
 * `API_KEY_INVALID`) is 401, as OpenAI clients expect of a bad key. A 429's `RetryInfo.retryDelay`
 * becomes `Retry-After` when Google sent no such header.
 * https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 * https://cloud.google.com/apis/design/errors
 */
import { GatewayError } from "../../errors.ts";
import { isObject, numberOf, objectsOf, parseJson, stringOf } from "./values.ts";

const TYPES: Readonly<Record<string, string>> = {
  INVALID_ARGUMENT: "invalid_request_error",
  FAILED_PRECONDITION: "invalid_request_error",
  OUT_OF_RANGE: "invalid_request_error",
  UNAUTHENTICATED: "authentication_error",
  PERMISSION_DENIED: "permission_error",
  NOT_FOUND: "not_found_error",
  RESOURCE_EXHAUSTED: "rate_limit_error",
  DEADLINE_EXCEEDED: "timeout_error",
  INTERNAL: "server_error",
  UNAVAILABLE: "server_error",
};

/** Google's error answers of the provider named `provider` (the Gemini API, Vertex AI), as the gateway's error. */
export function googleUpstreamError(provider: string): (status: number, text: string, headers?: Readonly<Record<string, string>>) => GatewayError {
  return (status, text, headers = {}) => upstreamError(provider, status, text, headers);
}

/** The Gemini API's error answers as the gateway's error. */
export const geminiUpstreamError = googleUpstreamError("Google Gemini");

function upstreamError(provider: string, status: number, text: string, headers: Readonly<Record<string, string>>): GatewayError {
  const parsed = parseJson(text);
  const body = Array.isArray(parsed) ? parsed[0] : parsed;
  const error = isObject(body) && isObject(body.error) ? body.error : undefined;
  if (!error) {
    const snippet = text.trim().slice(0, 500);
    const message = snippet ? `${provider} returned HTTP ${status}: ${snippet}` : `${provider} returned HTTP ${status}`;
    return new GatewayError("upstream_error", message, { status, upstream: { type: "upstream_error", code: null }, headers });
  }
  const googleStatus = stringOf(error.status);
  const details = objectsOf(error.details);
  const badKey = details.some((detail) => detail.reason === "API_KEY_INVALID");
  const sent = { ...headers };
  const delay = retryDelaySeconds(details);
  if (delay !== undefined && !Object.keys(sent).some((name) => name.toLowerCase() === "retry-after")) sent["retry-after"] = String(delay);
  return new GatewayError("upstream_error", stringOf(error.message) ?? `${provider} returned HTTP ${status}`, {
    status: badKey ? 401 : status,
    upstream: {
      type: badKey ? "authentication_error" : ((googleStatus && TYPES[googleStatus]) ?? "upstream_error"),
      code: googleStatus ?? (numberOf(error.code) !== undefined ? String(error.code) : null),
    },
    headers: sent,
  });
}

/** Whole seconds of a `google.rpc.RetryInfo` detail (`"37s"`, `"1.5s"` → 2). */
function retryDelaySeconds(details: readonly Record<string, unknown>[]): number | undefined {
  for (const detail of details) {
    const delay = stringOf(detail.retryDelay);
    const seconds = delay === undefined ? undefined : /^(\d+(?:\.\d+)?)s$/.exec(delay)?.[1];
    if (seconds !== undefined) return Math.ceil(Number(seconds));
  }
  return undefined;
}
