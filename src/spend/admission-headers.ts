import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { ProxyResponse } from "../core/upstream-answer.ts";
import type { Admission } from "./spend-meter.ts";

/**
 * The answer of an admitted metered request with its rate-limit and budget-alert headers,
 * success or failure (an error's own headers, an upstream's `Retry-After`, win). Unmetered
 * answers pass as they are.
 */
export function withLimitHeaders(answer: Result<ProxyResponse, GatewayError>, admission: Admission | null): Result<ProxyResponse, GatewayError> {
  if (!admission || Object.keys(admission.headers).length === 0) return answer;
  if (answer.ok) return ok({ ...answer.value, headers: { ...admission.headers, ...answer.value.headers } });
  const error = answer.error;
  return fail(
    new GatewayError(error.code, error.message, {
      param: error.param,
      status: error.status,
      upstream: error.upstream,
      details: error.details,
      headers: { ...admission.headers, ...error.headers },
    }),
  );
}
