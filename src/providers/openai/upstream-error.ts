/**
 * Maps an upstream error answer into the gateway's error (pure). OpenAI-style bodies
 * `{"error": {message, type, code, param}}` keep their fields; anything else is wrapped.
 * https://platform.openai.com/docs/guides/error-codes
 */
import { GatewayError } from "../../errors.ts";

/** `headers` are passed on to the client with the error (see `passedOnHeaders`). */
export function upstreamErrorFromBody(status: number, text: string, provider: string, headers?: Readonly<Record<string, string>>): GatewayError {
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: wrapped below.
  }
  const error = parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>).error : undefined;
  if (error && typeof error === "object") {
    const fields = error as Record<string, unknown>;
    const message = typeof fields.message === "string" ? fields.message : `${provider} returned HTTP ${status}`;
    return new GatewayError("upstream_error", message, {
      status,
      param: typeof fields.param === "string" ? fields.param : null,
      upstream: {
        type: typeof fields.type === "string" ? fields.type : "upstream_error",
        code: typeof fields.code === "string" ? fields.code : typeof fields.code === "number" ? String(fields.code) : null,
      },
      headers,
    });
  }
  if (typeof error === "string") {
    return new GatewayError("upstream_error", error, { status, upstream: { type: "upstream_error", code: null }, headers });
  }
  const snippet = text.trim().slice(0, 500);
  const message = snippet ? `${provider} returned HTTP ${status}: ${snippet}` : `${provider} returned HTTP ${status}`;
  return new GatewayError("upstream_error", message, { status, upstream: { type: "upstream_error", code: null }, headers });
}
