/**
 * `reasoning_effort` for the Bedrock models that reason, passed in Converse's
 * `additionalModelRequestFields` in each family's own terms (pure). Other models get nothing:
 * they would refuse a field they do not know.
 * https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html
 * https://docs.aws.amazon.com/nova/latest/nova2-userguide/extended-thinking.html
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-openai.html
 */
import type { JsonObject } from "../provider.ts";

/** Claude's thinking budget per effort (Claude needs at least 1,024). */
const CLAUDE_BUDGET: Readonly<Record<string, number>> = { minimal: 1024, low: 2048, medium: 8192, high: 16384 };

/** The model family of an id, an inference profile (`us.anthropic.…`) included. */
const family = (model: string): string => model.toLowerCase().replace(/^(us|eu|apac|us-gov|jp|au|ca|global)\./, "");

export function reasoningFields(model: string, effort: unknown): JsonObject | null {
  if (typeof effort !== "string" || effort === "none") return null;
  const id = family(model);
  // Claude 3.7 and later on Bedrock: the thinking budget as `reasoning_config`.
  if (id.startsWith("anthropic.claude") && !/claude-(instant|v2|3-(haiku|sonnet|opus|5))/.test(id)) {
    const budget = CLAUDE_BUDGET[effort];
    return budget ? { reasoning_config: { type: "enabled", budget_tokens: budget } } : null;
  }
  if (id.startsWith("amazon.nova-2")) {
    const level = effort === "minimal" ? "low" : effort;
    return ["low", "medium", "high"].includes(level) ? { reasoningConfig: { type: "enabled", maxReasoningEffort: level } } : null;
  }
  if (id.startsWith("openai.gpt-oss")) return { reasoning_effort: effort };
  return null;
}
