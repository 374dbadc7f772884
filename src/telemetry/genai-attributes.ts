/**
 * OpenTelemetry GenAI semantic-convention names (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/).
 * They are still "Development" in the conventions: `@opentelemetry/semantic-conventions` ships
 * them only from its `incubating` entry, whose own advice is to copy what one uses, so a rename
 * there cannot break the gateway's spans unnoticed.
 */
export const GEN_AI = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  /** The name before `gen_ai.provider.name` (conventions up to 1.36); sent too for older back ends. */
  system: "gen_ai.system",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  requestMaxTokens: "gen_ai.request.max_tokens",
  requestTemperature: "gen_ai.request.temperature",
  requestTopP: "gen_ai.request.top_p",
  usageInputTokens: "gen_ai.usage.input_tokens",
  usageOutputTokens: "gen_ai.usage.output_tokens",
} as const;

/** The conventions' well-known provider names where they differ from the gateway's ids. */
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  mistral: "mistral_ai",
  "x-ai": "x_ai",
};

export function genAiProvider(provider: string): string {
  return PROVIDER_NAMES[provider] ?? provider;
}
