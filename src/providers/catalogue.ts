/**
 * The providers the gateway reaches. OpenAI-format providers are data: adding one is a new
 * entry here. A provider with its own format is a folder beside this file exporting a
 * `Provider`, added to `PROVIDERS` below.
 */
import { geminiProvider } from "./gemini/index.ts";
import { anthropicProvider } from "./anthropic/index.ts";
import { openaiFormatProvider, type OpenAiFormatEntry } from "./openai/index.ts";
import { azureOpenAiProvider } from "./azure-openai/index.ts";
import { bedrockProvider } from "./bedrock/index.ts";
import { vertexProvider } from "./vertex/index.ts";
import type { Provider } from "./provider.ts";
import { withResponsesViaChat } from "./responses-via-chat/index.ts";

const openaiFormatEntries: OpenAiFormatEntry[] = [
  { id: "openai", name: "OpenAI", baseUrl: "https://api.openai.com/v1", streamUsage: "stream_options", docs: "https://platform.openai.com/docs/api-reference/chat" },
  { id: "groq", name: "Groq", baseUrl: "https://api.groq.com/openai/v1", streamUsage: "stream_options", docs: "https://console.groq.com/docs/openai" },
  { id: "mistral", name: "Mistral AI", baseUrl: "https://api.mistral.ai/v1", streamUsage: "always", docs: "https://docs.mistral.ai/api/" },
  { id: "deepseek", name: "DeepSeek", baseUrl: "https://api.deepseek.com/v1", streamUsage: "stream_options", docs: "https://api-docs.deepseek.com/" },
  { id: "together", name: "Together AI", baseUrl: "https://api.together.xyz/v1", streamUsage: "stream_options", docs: "https://docs.together.ai/docs/openai-api-compatibility" },
  { id: "fireworks", name: "Fireworks AI", baseUrl: "https://api.fireworks.ai/inference/v1", streamUsage: "stream_options", docs: "https://docs.fireworks.ai/tools-sdks/openai-compatibility" },
  { id: "x-ai", name: "xAI", baseUrl: "https://api.x.ai/v1", streamUsage: "stream_options", docs: "https://docs.x.ai/docs/api-reference" },
  { id: "openrouter", name: "OpenRouter", baseUrl: "https://openrouter.ai/api/v1", streamUsage: "stream_options", docs: "https://openrouter.ai/docs/api-reference/overview" },
  { id: "perplexity", name: "Perplexity", baseUrl: "https://api.perplexity.ai", streamUsage: "always", docs: "https://docs.perplexity.ai/api-reference/chat-completions" },
  { id: "cerebras", name: "Cerebras", baseUrl: "https://api.cerebras.ai/v1", streamUsage: "stream_options", docs: "https://inference-docs.cerebras.ai/resources/openai" },
  { id: "ollama", name: "Ollama", baseUrl: "http://127.0.0.1:11434/v1", streamUsage: "stream_options", docs: "https://github.com/ollama/ollama/blob/main/docs/openai.md" },
  { id: "openai-compatible", name: "Any OpenAI-compatible server", baseUrl: null, streamUsage: "stream_options", docs: "https://platform.openai.com/docs/api-reference/chat" },
];

const providers: Provider[] = [
  ...openaiFormatEntries.map(openaiFormatProvider),
  anthropicProvider,
  geminiProvider,
  vertexProvider,
  bedrockProvider,
  azureOpenAiProvider,
];

/** Providers without a Responses API of their own serve it through their chat transforms. */
export const PROVIDERS: ReadonlyMap<string, Provider> = new Map(providers.map(withResponsesViaChat).map((provider) => [provider.id, provider]));

const baseUrlNames = new Set([...PROVIDERS.values()].flatMap((provider) => (provider.baseUrl ? [new URL(provider.baseUrl).hostname] : [])));
const baseUrlPatterns = [...PROVIDERS.values()].flatMap((provider) => (provider.baseUrlHosts ? [provider.baseUrlHosts] : []));

/** Whether a host name is a built-in provider's (its `baseUrl` or one `baseUrlFrom` gives): DNS the gateway trusts, never pinned. */
export function isProviderHost(hostname: string): boolean {
  return baseUrlNames.has(hostname) || baseUrlPatterns.some((pattern) => pattern.test(hostname));
}

export function findProvider(id: string): Provider | undefined {
  return PROVIDERS.get(id.toLowerCase());
}
