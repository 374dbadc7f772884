import { GatewayError } from "../errors.ts";
import type { ProxyResponse } from "../operation/proxy-response.ts";
import type { Admission } from "./spend-meter.ts";

/** The answer of an admitted metered request with its rate-limit and budget-alert headers; an unmetered one as it is. */
export function responseWithLimitHeaders(response: ProxyResponse, admission: Admission | null): ProxyResponse {
  if (!hasHeaders(admission)) return response;
  return { ...response, headers: { ...admission.headers, ...response.headers } };
}

/** The error answering an admitted metered request, with its limit headers (the error's own headers, an upstream's `Retry-After`, win). */
export function errorWithLimitHeaders(error: GatewayError, admission: Admission | null): GatewayError {
  if (!hasHeaders(admission)) return error;
  return new GatewayError(error.code, error.message, {
    param: error.param,
    status: error.status,
    upstream: error.upstream,
    details: error.details,
    headers: { ...admission.headers, ...error.headers },
  });
}

function hasHeaders(admission: Admission | null): admission is Admission {
  if (!admission) return false;
  for (const _ in admission.headers) return true;
  return false;
}
