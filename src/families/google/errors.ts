/**
 * The gateway's errors in Google's shape, `{"error": {"code", "message", "status"}}`, which
 * `@google/genai` raises as its `ApiError` with the status. A refused field is named, as Google's
 * own 400s name theirs, in a `google.rpc.BadRequest` detail.
 * https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 * https://cloud.google.com/apis/design/errors#http_mapping
 */
import type { JsonObject } from "../../providers/provider.ts";
import { isObject, stringField } from "./json.ts";

/** Google's canonical status names by HTTP status (its HTTP mapping), with the gateway's own statuses placed by meaning. */
const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  405: "UNIMPLEMENTED",
  408: "DEADLINE_EXCEEDED",
  409: "ABORTED",
  412: "FAILED_PRECONDITION",
  413: "INVALID_ARGUMENT",
  415: "INVALID_ARGUMENT",
  423: "FAILED_PRECONDITION",
  429: "RESOURCE_EXHAUSTED",
  446: "PERMISSION_DENIED",
  499: "CANCELLED",
  501: "UNIMPLEMENTED",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** Google's status name for an HTTP status: other 4xx are FAILED_PRECONDITION, other 5xx INTERNAL. */
export function googleStatusName(status: number): string {
  return STATUS_NAMES[status] ?? (status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION");
}

/** What a Google error body is made of: the gateway's envelope or a `GatewayError` give these. */
export interface GoogleErrorFacts {
  status: number;
  message: string;
  /** The refused field, when the error names one. */
  param?: string | null;
  /** Extra top-level fields (a guardrail denial's `hook_results`), kept as in the gateway's envelope. */
  details?: Readonly<Record<string, unknown>>;
}

/** An error's body in Google's shape. */
export function googleErrorBody({ status, message, param, details }: GoogleErrorFacts): JsonObject {
  const error: JsonObject = { code: status, message, status: googleStatusName(status) };
  if (param) error.details = [{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field: param, description: message }] }];
  return { ...details, error };
}

/**
 * The facts of the gateway's error envelope `{error: {message, param, …}, …extras}`; null for any
 * other body, Google's own shape included (its `error.status` is a name). Never throws.
 */
export function gatewayEnvelopeFacts(status: number, envelope: unknown): GoogleErrorFacts | null {
  if (!isObject(envelope) || !isObject(envelope.error) || typeof envelope.error.status === "string") return null;
  const { error, ...details } = envelope;
  const message = stringField(error, "message");
  return message === null ? null : { status, message, param: stringField(error, "param"), details };
}
