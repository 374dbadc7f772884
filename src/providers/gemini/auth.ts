/**
 * Gemini API authorisation (pure): the key goes in `x-goog-api-key`, never in the URL, so it
 * cannot end up in a logged address.
 * https://ai.google.dev/gemini-api/docs/api-key
 */
import type { Credentials, UpstreamRequest } from "../provider.ts";

export function authorizeGoogleApiKey(request: UpstreamRequest, credentials: Credentials): UpstreamRequest {
  if (!credentials.apiKey) return request;
  return { ...request, headers: { ...request.headers, "x-goog-api-key": credentials.apiKey } };
}
