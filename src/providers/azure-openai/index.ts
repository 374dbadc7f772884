/**
 * Azure OpenAI: the OpenAI format on a resource of one's own. The base URL is the resource's
 * (a custom host, or `azure_resource`), paths carry the deployment and the API version
 * (`paths.ts`), and the key goes in `api-key` (or as a Microsoft Entra bearer token).
 * https://learn.microsoft.com/azure/ai-foundry/openai/reference
 */
import { openaiSseProtocol } from "../../streams/stream-protocol.ts";
import { openaiChatTransforms } from "../openai/chat.ts";
import { upstreamErrorFromBody } from "../openai/upstream-error.ts";
import type { CredentialField, Credentials, Provider, UpstreamRequest } from "../provider.ts";
import { azurePath } from "./paths.ts";

const RESOURCE = /^[a-z0-9-]{2,64}$/;

export const AZURE_FIELDS: readonly CredentialField[] = [
  { name: "azure_resource", header: "x-gateway-azure-resource", secret: false, pattern: RESOURCE, description: "Azure OpenAI resource name" },
  { name: "azure_deployment", header: "x-gateway-azure-deployment", secret: false, pattern: /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, description: "Azure OpenAI deployment name" },
  {
    name: "azure_api_version",
    header: "x-gateway-azure-api-version",
    secret: false,
    pattern: /^(\d{4}-\d{2}-\d{2}(-preview)?|v1)$/,
    description: "Azure OpenAI API version (such as 2024-10-21, 2025-04-01-preview or v1)",
  },
  { name: "azure_auth", header: "x-gateway-azure-auth", secret: false, pattern: /^(api-key|entra)$/, description: "Azure OpenAI auth style (api-key or entra)" },
];

/** `api-key: <key>`, or `Authorization: Bearer <token>` for a Microsoft Entra ID token. */
export function authorizeAzure(request: UpstreamRequest, credentials: Credentials): UpstreamRequest {
  if (!credentials.apiKey) return request;
  const headers = { ...request.headers };
  if (credentials.fields.azure_auth === "entra") headers.authorization = `Bearer ${credentials.apiKey}`;
  else headers["api-key"] = credentials.apiKey;
  return { ...request, headers };
}

export const azureOpenAiProvider: Provider = {
  id: "azure-openai",
  name: "Azure OpenAI",
  // Each resource has its own host: a custom host or `azure_resource` gives it.
  baseUrl: null,
  docs: "https://learn.microsoft.com/azure/ai-foundry/openai/reference",
  openaiFormat: true,
  credentialFields: AZURE_FIELDS,
  baseUrlFrom: (fields) => (fields.azure_resource && RESOURCE.test(fields.azure_resource) ? `https://${fields.azure_resource}.openai.azure.com` : null),
  baseUrlTemplate: "https://{azure_resource}.openai.azure.com",
  baseUrlHosts: /^[a-z0-9-]+\.openai\.azure\.com$/,
  upstreamPath: azurePath,
  // Azure answers `stream_options.include_usage` from API version 2024-09-01-preview on.
  operations: { createChatCompletion: openaiChatTransforms("stream_options") },
  chatRules: { streamUsage: "stream_options", fields: {} },
  streamProtocol: openaiSseProtocol,
  authorize: authorizeAzure,
  error: (status, text, headers) => upstreamErrorFromBody(status, text, "Azure OpenAI", headers),
};
