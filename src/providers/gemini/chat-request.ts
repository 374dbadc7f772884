/**
 * A chat completion request as a Gemini `generateContent` request (pure): the body from the
 * conversation, tools and generation config, and the path that names the model and, for a
 * stream, asks for server-sent events. Fields with no Gemini counterpart (`user`, `logprobs`,
 * `parallel_tool_calls`, `metadata`, `store`, `service_tier`, …) are not sent.
 * https://ai.google.dev/api/generate-content#method:-models.generatecontent
 * https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
import type { JsonObject } from "../provider.ts";
import { toGenerationConfig } from "./generation-config.ts";
import { toGeminiConversation } from "./messages.ts";
import { toGeminiToolConfig, toGeminiTools } from "./tools.ts";
import { GOOGLE_SEARCH_TOOL } from "./grounding.ts";
import { isObject } from "./values.ts";

export function toGeminiChatRequest(body: JsonObject, context: { model: string; stream: boolean }): { body: JsonObject; path: string } {
  const { contents, systemInstruction } = toGeminiConversation(body.messages);
  const request: JsonObject = { contents };
  if (systemInstruction) request.systemInstruction = systemInstruction;
  const tools = toGeminiTools(body.tools);
  // `web_search_options` grounds the answer on Google Search.
  const search = isObject(body.web_search_options) ? [GOOGLE_SEARCH_TOOL] : [];
  if (tools || search.length > 0) request.tools = [...(tools ?? []), ...search];
  const toolConfig = toGeminiToolConfig(body.tool_choice);
  if (toolConfig) request.toolConfig = toolConfig;
  const generationConfig = toGenerationConfig(body);
  if (generationConfig) request.generationConfig = generationConfig;
  return { body: request, path: modelPath(context.model, context.stream) };
}

/** `/models/{model}:generateContent`, or the SSE stream; a `models/` prefix the client wrote is not doubled. */
export function modelPath(model: string, stream: boolean): string {
  const name = encodeURIComponent(model.replace(/^models\//, ""));
  return stream ? `/models/${name}:streamGenerateContent?alt=sse` : `/models/${name}:generateContent`;
}
