/**
 * OpenAI `tools` and `tool_choice` as Gemini `tools` and `toolConfig` (pure).
 * https://ai.google.dev/api/caching#Tool
 * https://ai.google.dev/api/caching#FunctionCallingConfig
 *
 * Function tools become one `functionDeclarations` list with their parameters cleaned
 * (`json-schema.ts`); a declaration whose parameters name no property sends none, since Gemini
 * refuses an object schema without properties. Other tool types (`custom`) are dropped.
 * `tool_choice`: `none` → NONE, `auto` → AUTO, `required` → ANY, a named function → ANY limited to
 * it; `allowed_tools` → AUTO or ANY, limited to its functions only with ANY (Gemini allows
 * `allowedFunctionNames` with ANY only). `parallel_tool_calls` has no Gemini counterpart.
 */
import type { JsonObject } from "../provider.ts";
import { toGeminiSchema } from "./json-schema.ts";
import { isObject, objectsOf, stringOf } from "./values.ts";

export function toGeminiTools(tools: unknown): JsonObject[] | undefined {
  const declarations: JsonObject[] = [];
  for (const tool of objectsOf(tools)) {
    if (tool.type !== "function" || !isObject(tool.function)) continue;
    const fn = tool.function;
    const name = stringOf(fn.name);
    if (name === undefined) continue;
    const declaration: JsonObject = { name };
    const description = stringOf(fn.description);
    if (description !== undefined) declaration.description = description;
    const parameters = toGeminiSchema(fn.parameters);
    if (isObject(parameters.properties) && Object.keys(parameters.properties).length > 0) declaration.parameters = parameters;
    declarations.push(declaration);
  }
  return declarations.length > 0 ? [{ functionDeclarations: declarations }] : undefined;
}

export function toGeminiToolConfig(toolChoice: unknown): JsonObject | undefined {
  const config = functionCallingConfig(toolChoice);
  return config && { functionCallingConfig: config };
}

function functionCallingConfig(choice: unknown): JsonObject | undefined {
  if (choice === "none") return { mode: "NONE" };
  if (choice === "auto") return { mode: "AUTO" };
  if (choice === "required") return { mode: "ANY" };
  if (!isObject(choice)) return undefined;
  if (choice.type === "function") {
    const name = isObject(choice.function) ? stringOf(choice.function.name) : undefined;
    return name === undefined ? { mode: "ANY" } : { mode: "ANY", allowedFunctionNames: [name] };
  }
  if (choice.type === "allowed_tools" && isObject(choice.allowed_tools)) {
    if (choice.allowed_tools.mode !== "required") return { mode: "AUTO" };
    const names = objectsOf(choice.allowed_tools.tools)
      .map((tool) => (isObject(tool.function) ? stringOf(tool.function.name) : stringOf(tool.name)))
      .filter((name): name is string => name !== undefined);
    return names.length > 0 ? { mode: "ANY", allowedFunctionNames: names } : { mode: "ANY" };
  }
  return undefined;
}
