/**
 * Azure AI Foundry's models inference endpoint: every model deployed in a Foundry resource
 * (Mistral, Llama, DeepSeek, Phi, OpenAI…) behind one OpenAI-format endpoint,
 * `https://{resource}.services.ai.azure.com/models`, the deployment named by the body's `model`.
 * Paths take `api-version`; the key goes in `api-key` (or a Microsoft Entra token as a bearer).
 * The endpoint refuses fields outside its own schema unless asked to pass them to the model
 * (`extra-parameters: pass-through`), which the gateway asks, since its clients speak OpenAI's
 * (`stream_options` among them).
 * https://learn.microsoft.com/azure/ai-foundry/foundry-models/how-to/inference
 * https://learn.microsoft.com/rest/api/aifoundry/modelinference/
 */
import { openaiSseProtocol } from "../../streams/stream-protocol.ts";
import { authorizeAzure } from "../azure-openai/index.ts";
import { openaiChatTransforms } from "../openai/chat.ts";
import { upstreamErrorFromBody } from "../openai/upstream-error.ts";
import type { CredentialField, Provider } from "../provider.ts";

/** The API version sent when none is asked for. */
export const FOUNDRY_API_VERSION = "2024-05-01-preview";

const RESOURCE = /^[a-z0-9-]{2,64}$/;

const FOUNDRY_FIELDS: readonly CredentialField[] = [
  { name: "azure_resource", header: "x-gateway-azure-resource", secret: false, pattern: RESOURCE, description: "Azure AI Foundry resource name" },
  {
    name: "azure_api_version",
    header: "x-gateway-azure-api-version",
    secret: false,
    pattern: /^\d{4}-\d{2}-\d{2}(-preview)?$/,
    description: "Azure AI model inference API version (such as 2024-05-01-preview)",
  },
  { name: "azure_auth", header: "x-gateway-azure-auth", secret: false, pattern: /^(api-key|entra)$/, description: "Azure auth style (api-key or entra)" },
];

/** The path with `api-version` added to its query, unless the client sent one. */
export function foundryPath(path: string, context: { fields: Readonly<Record<string, string>> }): string {
  const queryAt = path.indexOf("?");
  const query = new URLSearchParams(queryAt === -1 ? "" : path.slice(queryAt + 1));
  if (!query.has("api-version")) query.set("api-version", context.fields.azure_api_version ?? FOUNDRY_API_VERSION);
  return `${queryAt === -1 ? path : path.slice(0, queryAt)}?${query.toString()}`;
}

export const azureAiFoundryProvider: Provider = {
  id: "azure-ai-foundry",
  name: "Azure AI Foundry",
  // Each resource has its own host: a custom host or `azure_resource` gives it.
  baseUrl: null,
  customHostNeedsPath: true,
  docs: "https://learn.microsoft.com/azure/ai-foundry/foundry-models/how-to/inference",
  openaiFormat: true,
  credentialFields: FOUNDRY_FIELDS,
  baseUrlFrom: (fields) => (fields.azure_resource && RESOURCE.test(fields.azure_resource) ? `https://${fields.azure_resource}.services.ai.azure.com/models` : null),
  baseUrlTemplate: "https://{azure_resource}.services.ai.azure.com/models",
  baseUrlHosts: /^[a-z0-9-]+\.services\.ai\.azure\.com$/,
  upstreamPath: foundryPath,
  operations: { createChatCompletion: openaiChatTransforms("stream_options", {}, "Azure AI Foundry") },
  chatRules: { streamUsage: "stream_options", fields: {} },
  streamProtocol: openaiSseProtocol,
  authorize: (request, credentials) => {
    const authorized = authorizeAzure(request, credentials);
    return { ...authorized, headers: { "extra-parameters": "pass-through", ...authorized.headers } };
  },
  error: (status, text, headers) => upstreamErrorFromBody(status, text, "Azure AI Foundry", headers),
};
