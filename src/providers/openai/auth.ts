/**
 * OpenAI-style authorisation (pure): the key as a bearer token, the organisation and project
 * as their own headers.
 * https://platform.openai.com/docs/api-reference/authentication
 */
import type { Credentials, UpstreamRequest } from "../provider.ts";

export function authorizeBearer(request: UpstreamRequest, credentials: Credentials): UpstreamRequest {
  const headers = { ...request.headers };
  if (credentials.apiKey) headers.authorization = `Bearer ${credentials.apiKey}`;
  if (credentials.organization) headers["openai-organization"] = credentials.organization;
  if (credentials.project) headers["openai-project"] = credentials.project;
  return { ...request, headers };
}
