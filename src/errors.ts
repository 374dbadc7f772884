/**
 * The one error model: a closed set of codes, each with its HTTP status and
 * OpenAI-style `type`. Only the app's error handler and the validation hook turn
 * a GatewayError into JSON (see `errorEnvelope`).
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_json: 400,
  unknown_provider: 400,
  forbidden_custom_host: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  budget_exhausted: 412,
  body_too_large: 413,
  run_halted: 423,
  upgrade_required: 426,
  headers_too_large: 431,
  rate_limited: 429,
  guardrail_denied: 446,
  client_closed: 499,
  internal_error: 500,
  upstream_unreachable: 502,
  upstream_error: 502,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

const ERROR_TYPE: Record<ErrorCode, string> = {
  invalid_request: "invalid_request_error",
  invalid_json: "invalid_request_error",
  unknown_provider: "invalid_request_error",
  forbidden_custom_host: "invalid_request_error",
  missing_api_key: "authentication_error",
  invalid_api_key: "authentication_error",
  insufficient_scope: "permission_error",
  not_found: "not_found_error",
  method_not_allowed: "invalid_request_error",
  request_timeout: "timeout_error",
  budget_exhausted: "budget_error",
  run_halted: "run_halted_error",
  body_too_large: "invalid_request_error",
  upgrade_required: "invalid_request_error",
  headers_too_large: "invalid_request_error",
  rate_limited: "rate_limit_error",
  guardrail_denied: "guardrail_error",
  client_closed: "invalid_request_error",
  internal_error: "server_error",
  upstream_unreachable: "upstream_error",
  upstream_error: "upstream_error",
  service_unavailable: "server_error",
};

export interface ErrorBody {
  error: { message: string; type: string; code: string | null; param: string | null };
  [extra: string]: unknown;
}

/** An expected failure with a known code; `status` overrides the code's default (upstream statuses are kept). */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly param: string | null;
  /** Set when an upstream answered with its own error: its type and code are kept. */
  readonly upstream?: { type?: string; code?: string | null };
  /** Extra top-level fields of the error body (e.g. `hook_results` of a guardrail denial). */
  readonly details?: Record<string, unknown>;
  /** Response headers to send with the error (an upstream's `Retry-After` and rate-limit headers). */
  readonly headers?: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    options: {
      param?: string | null;
      status?: number;
      upstream?: { type?: string; code?: string | null };
      details?: Record<string, unknown>;
      headers?: Readonly<Record<string, string>>;
    } = {},
  ) {
    super(message);
    this.name = "GatewayError";
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code];
    this.param = options.param ?? null;
    this.upstream = options.upstream;
    this.details = options.details;
    this.headers = options.headers;
  }

  toBody(): ErrorBody {
    return errorEnvelope(this);
  }
}

export function errorEnvelope(error: GatewayError): ErrorBody {
  return {
    ...error.details,
    error: {
      message: error.message,
      type: error.upstream?.type ?? ERROR_TYPE[error.code],
      code: error.upstream ? (error.upstream.code ?? null) : error.code,
      param: error.param,
    },
  };
}

/** A result type for core functions that fail in expected ways. */
export type Result<T, E = GatewayError> = { ok: true; value: T } | { ok: false; error: E };
export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });
export const fail = <E>(error: E): Result<never, E> => ({ ok: false, error });
