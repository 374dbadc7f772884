import { MAX_REQUEST_TIMEOUT_MS } from "../config.ts";

/**
 * The upstream timeout of one request: the `x-gateway-request-timeout` header (already held by
 * the route's generated validator to decimal digits from 1 to the document's maximum, which is
 * `MAX_REQUEST_TIMEOUT_MS`), else the config's `request_timeout`, else the gateway's default.
 * A config stored before the bound existed is held to it too, since a timer given 2^31 ms or
 * more fires at once.
 */
export function requestTimeout(header: number | undefined, fallback: number): number {
  return header ?? Math.min(fallback, MAX_REQUEST_TIMEOUT_MS);
}
