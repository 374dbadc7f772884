/**
 * The upstream's answer headers a client needs to pace itself: `Retry-After` and every
 * `x-ratelimit-*` header (OpenAI's `x-ratelimit-remaining-requests`, `…-reset-tokens`, and the
 * like). They go to the client with successes, errors and streams alike. Never throws.
 */
export function passedOnHeaders(headers: Headers): Record<string, string> {
  const passed: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (name === "retry-after" || name === "retry-after-ms" || name.startsWith("x-ratelimit-")) passed[name] = value;
  });
  return passed;
}
