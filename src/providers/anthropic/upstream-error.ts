/**
 * Anthropic's error answers as the gateway's error (pure). The body
 * `{type:"error", error:{type, message}, request_id}` keeps its message, and its error type
 * becomes both the envelope's `type` and `code` (the log's error code), so a client can tell
 * `overloaded_error` from `rate_limit_error`.
 *
 * The status is kept as Anthropic sent it, 529 (overloaded) included: routing reads the upstream's
 * own status for retries and fallbacks (`on_status_codes: [529]`), and the client then sees the
 * status those rules saw. Headers passed on (`Retry-After`) go with the error.
 * https://docs.anthropic.com/en/api/errors
 */
import { GatewayError } from "../../errors.ts";
import { upstreamErrorFromBody } from "../openai/upstream-error.ts";

interface AnthropicErrorBody {
  type?: unknown;
  error?: { type?: unknown; message?: unknown };
}

/** The error of an Anthropic error body; null when the text is not one. Never throws. */
export function anthropicError(status: number, text: string, headers?: Readonly<Record<string, string>>): GatewayError | null {
  let parsed: AnthropicErrorBody | null = null;
  try {
    parsed = JSON.parse(text) as AnthropicErrorBody;
  } catch {
    return null;
  }
  const error = parsed && typeof parsed === "object" ? parsed.error : undefined;
  if (!error || typeof error !== "object" || typeof error.type !== "string") return null;
  const message = typeof error.message === "string" && error.message ? error.message : `Anthropic returned ${error.type} (HTTP ${status})`;
  return new GatewayError("upstream_error", message, { status, upstream: { type: error.type, code: error.type }, headers });
}

/** Any error answer: Anthropic's shape first, else the generic reading (OpenAI envelope, or the text wrapped). */
export function anthropicUpstreamError(status: number, text: string, headers: Readonly<Record<string, string>>): GatewayError {
  return anthropicError(status, text, headers) ?? upstreamErrorFromBody(status, text, "Anthropic", headers);
}
