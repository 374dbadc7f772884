/**
 * Anthropic authorisation (pure): the key as `x-api-key` and the API version every request must
 * name. The client's bearer key, or a virtual key's stored one, arrives as `apiKey`; OpenAI's
 * organisation and project have no Anthropic counterpart and are not sent.
 * https://docs.anthropic.com/en/api/overview#authentication
 * https://docs.anthropic.com/en/api/versioning
 */
import type { Credentials, UpstreamRequest } from "../provider.ts";

/** The Messages API version the transforms are written against. */
export const ANTHROPIC_VERSION = "2023-06-01";

export function authorizeAnthropic(request: UpstreamRequest, credentials: Credentials): UpstreamRequest {
  const headers: Record<string, string> = { ...request.headers, "anthropic-version": ANTHROPIC_VERSION };
  if (credentials.apiKey) headers["x-api-key"] = credentials.apiKey;
  return { ...request, headers };
}
