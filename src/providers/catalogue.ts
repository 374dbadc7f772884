/**
 * The providers the gateway reaches. OpenAI-format providers are data: adding one is a new
 * entry here. A provider with its own format is a folder beside this file exporting a
 * `Provider`, added to `PROVIDERS` below.
 */
import { geminiProvider } from "./gemini/index.ts";
import { anthropicProvider } from "./anthropic/index.ts";
import { openaiFormatProvider, type OpenAiFormatEntry } from "./openai/index.ts";
import { azureOpenAiProvider } from "./azure-openai/index.ts";
import { azureAiFoundryProvider } from "./azure-ai-foundry/index.ts";
import { cohereProvider } from "./cohere/index.ts";
import { jinaProvider } from "./jina/index.ts";
import { voyageProvider } from "./voyage/index.ts";
import { bedrockProvider } from "./bedrock/index.ts";
import { vertexProvider } from "./vertex/index.ts";
import type { Provider } from "./provider.ts";
import { withResponsesViaChat } from "../families/responses/via-chat/index.ts";

/**
 * Each entry: where the API lives, how its streams report usage, the chat fields its docs say it
 * refuses (`chatFields`, refused by the gateway with a 400 naming field and provider), and the
 * docs its details come from. Local servers (`ollama`, `vllm`, `lm-studio`, `llama-cpp`) default
 * to their usual loopback address; a custom host points elsewhere.
 */
const openaiFormatEntries: OpenAiFormatEntry[] = [
  { id: "openai", name: "OpenAI", baseUrl: "https://api.openai.com/v1", streamUsage: "stream_options", docs: "https://platform.openai.com/docs/api-reference/chat" },
  {
    id: "groq",
    name: "Groq",
    baseUrl: "https://api.groq.com/openai/v1",
    streamUsage: "stream_options",
    chatFields: { refuse: ["logprobs", "logit_bias", "top_logprobs", "messages[].name"], only: { n: 1 } },
    docs: "https://console.groq.com/docs/openai",
  },
  { id: "mistral", name: "Mistral AI", baseUrl: "https://api.mistral.ai/v1", streamUsage: "always", docs: "https://docs.mistral.ai/api/" },
  { id: "deepseek", name: "DeepSeek", baseUrl: "https://api.deepseek.com/v1", streamUsage: "stream_options", docs: "https://api-docs.deepseek.com/" },
  { id: "together", name: "Together AI", baseUrl: "https://api.together.xyz/v1", streamUsage: "stream_options", docs: "https://docs.together.ai/docs/openai-api-compatibility" },
  { id: "fireworks", name: "Fireworks AI", baseUrl: "https://api.fireworks.ai/inference/v1", streamUsage: "stream_options", docs: "https://docs.fireworks.ai/tools-sdks/openai-compatibility" },
  { id: "x-ai", name: "xAI", baseUrl: "https://api.x.ai/v1", streamUsage: "stream_options", docs: "https://docs.x.ai/docs/api-reference" },
  { id: "openrouter", name: "OpenRouter", baseUrl: "https://openrouter.ai/api/v1", streamUsage: "stream_options", docs: "https://openrouter.ai/docs/api-reference/overview" },
  { id: "perplexity", name: "Perplexity", baseUrl: "https://api.perplexity.ai", streamUsage: "always", citesSources: true, docs: "https://docs.perplexity.ai/api-reference/chat-completions" },
  {
    id: "cerebras",
    name: "Cerebras",
    baseUrl: "https://api.cerebras.ai/v1",
    streamUsage: "stream_options",
    chatFields: { refuse: ["frequency_penalty", "logit_bias", "presence_penalty", "parallel_tool_calls", "service_tier"] },
    docs: "https://inference-docs.cerebras.ai/resources/openai",
  },
  { id: "huggingface", name: "Hugging Face Inference Providers", baseUrl: "https://router.huggingface.co/v1", streamUsage: "stream_options", docs: "https://huggingface.co/docs/inference-providers/index" },
  {
    id: "cloudflare-workers-ai",
    name: "Cloudflare Workers AI",
    // The account id is part of the path: `cloudflare_account_id` (x-gateway-cloudflare-account-id) fills it in.
    baseUrl: null,
    baseUrlTemplate: "https://api.cloudflare.com/client/v4/accounts/{cloudflare_account_id}/ai/v1",
    credentialFields: [
      { name: "cloudflare_account_id", header: "x-gateway-cloudflare-account-id", secret: false, pattern: /^[0-9a-f]{32}$/, description: "Cloudflare account id (32 hexadecimal digits)" },
    ],
    streamUsage: "stream_options",
    docs: "https://developers.cloudflare.com/workers-ai/configuration/open-ai-compatibility/",
  },
  { id: "github-models", name: "GitHub Models", baseUrl: "https://models.github.ai/inference", streamUsage: "stream_options", docs: "https://docs.github.com/en/rest/models/inference" },
  { id: "nvidia-nim", name: "NVIDIA NIM", baseUrl: "https://integrate.api.nvidia.com/v1", streamUsage: "stream_options", docs: "https://docs.api.nvidia.com/nim/reference/llm-apis" },
  { id: "sambanova", name: "SambaNova Cloud", baseUrl: "https://api.sambanova.ai/v1", streamUsage: "stream_options", docs: "https://docs.sambanova.ai/docs/en/features/openai-compatibility" },
  { id: "nebius", name: "Nebius Token Factory", baseUrl: "https://api.tokenfactory.nebius.com/v1", streamUsage: "stream_options", docs: "https://docs.tokenfactory.nebius.com/api-reference/introduction" },
  { id: "novita", name: "Novita AI", baseUrl: "https://api.novita.ai/openai/v1", streamUsage: "stream_options", docs: "https://novita.ai/docs/guides/llm-api" },
  { id: "hyperbolic", name: "Hyperbolic", baseUrl: "https://api.hyperbolic.xyz/v1", streamUsage: "stream_options", docs: "https://docs.hyperbolic.xyz/docs/rest-api" },
  { id: "deepinfra", name: "DeepInfra", baseUrl: "https://api.deepinfra.com/v1/openai", streamUsage: "stream_options", docs: "https://deepinfra.com/docs/advanced/openai_api" },
  { id: "moonshot", name: "Moonshot AI (Kimi)", baseUrl: "https://api.moonshot.ai/v1", streamUsage: "stream_options", docs: "https://platform.moonshot.ai/docs/api/chat" },
  // Z.ai's international endpoint; mainland China's is https://open.bigmodel.cn/api/paas/v4 (a custom host).
  { id: "zhipu", name: "Zhipu AI (GLM, Z.ai)", baseUrl: "https://api.z.ai/api/paas/v4", streamUsage: "always", docs: "https://docs.z.ai/api-reference/llm/chat-completion" },
  // The Singapore endpoint; Beijing's is https://dashscope.aliyuncs.com/compatible-mode/v1 (a custom host).
  {
    id: "dashscope",
    name: "Alibaba Cloud Model Studio (DashScope, Qwen)",
    baseUrl: "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
    streamUsage: "stream_options",
    docs: "https://www.alibabacloud.com/help/en/model-studio/compatibility-of-openai-with-dashscope",
  },
  { id: "baseten", name: "Baseten", baseUrl: "https://inference.baseten.co/v1", streamUsage: "stream_options", docs: "https://docs.baseten.co/quickstart" },
  { id: "featherless", name: "Featherless AI", baseUrl: "https://api.featherless.ai/v1", streamUsage: "stream_options", docs: "https://featherless.ai/docs/quickstart-guide" },
  { id: "siliconflow", name: "SiliconFlow", baseUrl: "https://api.siliconflow.com/v1", streamUsage: "stream_options", docs: "https://docs.siliconflow.com/en/api-reference/chat-completions/chat-completions" },
  { id: "scaleway", name: "Scaleway Generative APIs", baseUrl: "https://api.scaleway.ai/v1", streamUsage: "stream_options", docs: "https://www.scaleway.com/en/docs/generative-apis/api-cli/using-chat-api/" },
  { id: "nscale", name: "Nscale", baseUrl: "https://inference.api.nscale.com/v1", streamUsage: "stream_options", docs: "https://docs.nscale.com/docs/inference/serverless-models/overview" },
  { id: "ovhcloud", name: "OVHcloud AI Endpoints", baseUrl: "https://oai.endpoints.kepler.ai.cloud.ovh.net/v1", streamUsage: "stream_options", docs: "https://endpoints.ai.cloud.ovh.net/" },
  { id: "minimax", name: "MiniMax", baseUrl: "https://api.minimax.io/v1", streamUsage: "stream_options", docs: "https://platform.minimax.io/docs/api-reference/text-openai-api" },
  { id: "upstage", name: "Upstage", baseUrl: "https://api.upstage.ai/v1", streamUsage: "stream_options", docs: "https://console.upstage.ai/docs/capabilities/chat" },
  { id: "ollama", name: "Ollama", baseUrl: "http://127.0.0.1:11434/v1", streamUsage: "stream_options", docs: "https://github.com/ollama/ollama/blob/main/docs/openai.md" },
  { id: "vllm", name: "vLLM", baseUrl: "http://127.0.0.1:8000/v1", streamUsage: "stream_options", docs: "https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html" },
  { id: "lm-studio", name: "LM Studio", baseUrl: "http://127.0.0.1:1234/v1", streamUsage: "stream_options", docs: "https://lmstudio.ai/docs/developer/openai-compat" },
  { id: "llama-cpp", name: "llama.cpp server", baseUrl: "http://127.0.0.1:8080/v1", streamUsage: "stream_options", docs: "https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md" },
  { id: "openai-compatible", name: "Any OpenAI-compatible server", baseUrl: null, streamUsage: "stream_options", docs: "https://platform.openai.com/docs/api-reference/chat" },
];

const providers: Provider[] = [
  ...openaiFormatEntries.map(openaiFormatProvider),
  anthropicProvider,
  geminiProvider,
  vertexProvider,
  bedrockProvider,
  azureOpenAiProvider,
  azureAiFoundryProvider,
  cohereProvider,
  jinaProvider,
  voyageProvider,
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
