/**
 * OpenAI tools and tool choice → Converse's `toolConfig` (pure).
 * https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use-inference-call.html
 */
import { GatewayError } from "../../errors.ts";
import type { JsonObject } from "../provider.ts";

/**
 * The tool configuration, or null for none. Converse has no "none" choice: `tool_choice: "none"`
 * sends no tools, unless the conversation already holds tool calls (Converse then requires the
 * tools), when they go with the model's own choice.
 */
export function converseTools(body: JsonObject, hasToolBlocks: boolean): JsonObject | null | GatewayError {
  const tools = Array.isArray(body.tools) ? (body.tools as JsonObject[]) : [];
  if (tools.length === 0) return null;
  const specs: JsonObject[] = [];
  for (const [index, tool] of tools.entries()) {
    if (tool.type !== "function") {
      return new GatewayError("invalid_request", `tools[${index}] is a "${String(tool.type)}" tool; Bedrock takes function tools.`, { param: `tools[${index}].type` });
    }
    const fn = (tool.function ?? {}) as JsonObject;
    const spec: JsonObject = { name: fn.name, inputSchema: { json: fn.parameters ?? { type: "object", properties: {} } } };
    if (typeof fn.description === "string" && fn.description) spec.description = fn.description;
    specs.push({ toolSpec: spec });
  }
  const choice = body.tool_choice;
  if (choice === "none") return hasToolBlocks ? { tools: specs } : null;
  const config: JsonObject = { tools: specs };
  if (choice === "auto") config.toolChoice = { auto: {} };
  else if (choice === "required") config.toolChoice = { any: {} };
  else if (choice && typeof choice === "object") {
    const named = choice as JsonObject;
    const name = (named.function as JsonObject | undefined)?.name;
    if (named.type !== "function" || typeof name !== "string") {
      return new GatewayError("invalid_request", "Bedrock takes tool_choice auto, required, none or one named function.", { param: "tool_choice" });
    }
    config.toolChoice = { tool: { name } };
  }
  return config;
}
