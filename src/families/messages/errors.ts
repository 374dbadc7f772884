/**
 * The gateway's errors in Anthropic's shape, `{type: "error", error: {type, message}}`, so that
 * Anthropic's clients raise their own error classes (chosen by status) with the message.
 * https://docs.anthropic.com/en/api/errors
 */
import type { JsonObject } from "../../providers/provider.ts";
import { isObject } from "../json-fields.ts";

/** Anthropic's error type for a status (its list; other 4xx are `invalid_request_error`). */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 401:
      return "authentication_error";
    case 402:
      return "billing_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 408:
    case 504:
      return "timeout_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 529:
      return "overloaded_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

/** What an error body is made of: the gateway's envelope or a `GatewayError` give these. */
export interface ErrorFacts {
  status: number;
  message: string;
  /** Extra top-level fields (a guardrail denial's `hook_results`), kept as in the gateway's envelope. */
  details?: Readonly<Record<string, unknown>>;
}

/** An error's body in Anthropic's shape; `requestId` is the gateway's log id, when known. */
export function anthropicErrorBody({ status, message, details }: ErrorFacts, requestId?: string): JsonObject {
  const body: JsonObject = { ...details, type: "error", error: { type: anthropicErrorType(status), message } };
  if (requestId !== undefined) body.request_id = requestId;
  return body;
}

/**
 * The facts of the gateway's error envelope `{error: {message, …}, …extras}`; null for any
 * other body. Never throws.
 */
export function envelopeFacts(status: number, envelope: unknown): ErrorFacts | null {
  if (!isObject(envelope)) return null;
  const { error, ...details } = envelope;
  const message = isObject(error) && typeof error.message === "string" ? error.message : null;
  return message === null ? null : { status, message, details };
}
