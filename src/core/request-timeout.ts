import { MAX_REQUEST_TIMEOUT_MS } from "../config.ts";
import { fail, GatewayError, ok, type Result } from "../errors.ts";

export const TIMEOUT_HEADER = "x-gateway-request-timeout";

/**
 * The upstream timeout of one request: the `x-gateway-request-timeout` header, else the
 * config's `request_timeout`, else the gateway's default. The header is decimal digits only
 * (no sign, space, exponent or hex) from 1 to `MAX_REQUEST_TIMEOUT_MS`; anything else is a 400
 * naming it. A config stored before the bound existed is held to it too, since a timer given
 * 2^31 ms or more fires at once.
 */
export function requestTimeout(header: string | undefined, fallback: number): Result<number, GatewayError> {
  if (header === undefined) return ok(Math.min(fallback, MAX_REQUEST_TIMEOUT_MS));
  const value = /^[0-9]{1,10}$/.test(header) ? Number(header) : Number.NaN;
  if (!(value >= 1 && value <= MAX_REQUEST_TIMEOUT_MS)) {
    return fail(
      new GatewayError("invalid_request", `${TIMEOUT_HEADER} must be a whole number of milliseconds from 1 to ${MAX_REQUEST_TIMEOUT_MS}, in decimal digits.`, {
        param: TIMEOUT_HEADER,
      }),
    );
  }
  return ok(value);
}
