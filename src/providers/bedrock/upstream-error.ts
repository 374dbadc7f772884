/**
 * Bedrock's error answers as the gateway's error (pure). Bedrock answers `{"message": …}` (or
 * `Message`) and names the error in `x-amzn-errortype` (`ThrottlingException:http://…`); in a
 * stream, exceptions arrive as events named after them.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_Errors
 */
import { GatewayError } from "../../errors.ts";
import type { StreamEvent } from "../../streams/stream-protocol.ts";

/** Never throws. Keeps the status (429 keeps `Retry-After` among the passed headers). */
export function bedrockError(status: number, text: string, headers: Readonly<Record<string, string>>, errorType: string | null): GatewayError {
  const message = messageOf(text) ?? `AWS Bedrock returned HTTP ${status}`;
  const code = errorType ? errorType.split(":")[0]!.trim() || null : null;
  return new GatewayError("upstream_error", message, { status, upstream: { type: upstreamType(status), code }, headers });
}

/** An exception event of a stream (`throttlingException`, or the decoder's `error`) as the gateway's error. */
export function bedrockStreamError(event: StreamEvent): GatewayError {
  let parsed: { message?: unknown; Message?: unknown; code?: unknown } = {};
  try {
    parsed = JSON.parse(event.data) as typeof parsed;
  } catch {
    // Not JSON: described by its name.
  }
  const message = typeof parsed.message === "string" ? parsed.message : typeof parsed.Message === "string" ? parsed.Message : `AWS Bedrock's stream failed (${event.event ?? "error"}).`;
  const name = typeof parsed.code === "string" ? parsed.code : (event.event ?? "error");
  const code = name.charAt(0).toUpperCase() + name.slice(1);
  const status = STREAM_STATUS[name] ?? 502;
  return new GatewayError("upstream_error", message, { status, upstream: { type: upstreamType(status), code } });
}

/** The HTTP status each stream exception stands for (its `smithy.api#httpError`). */
const STREAM_STATUS: Readonly<Record<string, number>> = {
  internalServerException: 500,
  modelStreamErrorException: 424,
  validationException: 400,
  throttlingException: 429,
  serviceUnavailableException: 503,
};

function upstreamType(status: number): string {
  if (status === 429) return "rate_limit_error";
  if (status === 401 || status === 403) return "authentication_error";
  if (status >= 400 && status < 500) return "invalid_request_error";
  return "upstream_error";
}

function messageOf(text: string): string | null {
  try {
    const parsed = JSON.parse(text) as { message?: unknown; Message?: unknown };
    if (typeof parsed.message === "string") return parsed.message;
    if (typeof parsed.Message === "string") return parsed.Message;
  } catch {
    // Not JSON: the text itself, shortened.
  }
  const snippet = text.trim().slice(0, 500);
  return snippet || null;
}
