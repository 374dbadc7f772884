/**
 * A chat completion as a Responses answer, for providers reached through chat (pure). The
 * request's settings are echoed as the Responses API does; ids derive from the completion's,
 * so one answer always reads the same.
 * https://platform.openai.com/docs/api-reference/responses/object
 */
import type { JsonObject } from "../../../providers/provider.ts";

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** What a Responses answer echoes of its request. */
export function echoedSettings(request: JsonObject): JsonObject {
  return {
    instructions: typeof request.instructions === "string" ? request.instructions : null,
    max_output_tokens: typeof request.max_output_tokens === "number" ? request.max_output_tokens : null,
    metadata: isObject(request.metadata) ? request.metadata : {},
    parallel_tool_calls: request.parallel_tool_calls !== false,
    reasoning: isObject(request.reasoning) ? { effort: request.reasoning.effort ?? null, summary: null } : { effort: null, summary: null },
    temperature: typeof request.temperature === "number" ? request.temperature : 1,
    text: isObject(request.text) ? request.text : { format: { type: "text" } },
    tool_choice: request.tool_choice ?? "auto",
    tools: Array.isArray(request.tools) ? request.tools.map(echoedTool) : [],
    top_p: typeof request.top_p === "number" ? request.top_p : 1,
    truncation: "disabled",
    ...(typeof request.user === "string" && { user: request.user }),
  };
}

/** A function tool as a Responses answer shows it: every field present (`strict` is what was asked). */
function echoedTool(tool: unknown): unknown {
  if (!isObject(tool) || tool.type !== "function") return tool;
  return { type: "function", name: tool.name, description: tool.description ?? null, parameters: tool.parameters ?? null, strict: tool.strict === true };
}

/** Responses usage from chat usage; the provider's searches (`server_tool_use`) are kept, for pricing. */
export function responsesUsage(usage: unknown): JsonObject | null {
  if (!isObject(usage)) return null;
  const input = typeof usage.prompt_tokens === "number" ? usage.prompt_tokens : 0;
  const output = typeof usage.completion_tokens === "number" ? usage.completion_tokens : 0;
  const promptDetails = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const completionDetails = isObject(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
  return {
    input_tokens: input,
    input_tokens_details: {
      cached_tokens: typeof promptDetails.cached_tokens === "number" ? promptDetails.cached_tokens : 0,
      cache_write_tokens: typeof promptDetails.cache_write_tokens === "number" ? promptDetails.cache_write_tokens : 0,
    },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: typeof completionDetails.reasoning_tokens === "number" ? completionDetails.reasoning_tokens : 0 },
    total_tokens: typeof usage.total_tokens === "number" ? usage.total_tokens : input + output,
    ...(isObject(usage.server_tool_use) && { server_tool_use: usage.server_tool_use }),
  };
}

export function messageItem(id: string, text: string, status: "in_progress" | "completed"): JsonObject {
  return { id, type: "message", role: "assistant", status, content: status === "in_progress" ? [] : [outputText(text)] };
}

export function outputText(text: string, annotations: JsonObject[] = []): JsonObject {
  return { type: "output_text", text, annotations, logprobs: [] };
}

/** Chat `url_citation` annotations as Responses ones. */
export function responsesAnnotations(annotations: unknown): JsonObject[] {
  if (!Array.isArray(annotations)) return [];
  return annotations.flatMap((annotation) => {
    if (!isObject(annotation) || annotation.type !== "url_citation" || !isObject(annotation.url_citation)) return [];
    const { start_index, end_index, url, title } = annotation.url_citation;
    return [{ type: "url_citation", start_index, end_index, url, title }];
  });
}

/** A web search the provider made, as a Responses `web_search_call` item. */
export function webSearchCallItem(id: string, query: string): JsonObject {
  return { id, type: "web_search_call", status: "completed", action: { type: "search", query } };
}

export function functionCallItem(callId: string, name: string, args: string, status: "in_progress" | "completed"): JsonObject {
  return { id: `fc_${callId}`, type: "function_call", call_id: callId, name, arguments: args, status };
}

/** The `usage` field when the answer reports usage (the schema has no null for it). */
export function usageField(usage: unknown): { usage?: JsonObject } {
  const converted = responsesUsage(usage);
  return converted ? { usage: converted } : {};
}

/** `length` ends a response as incomplete; everything else completes it. */
export function finalStatus(finishReason: unknown): { status: string; incomplete_details: JsonObject | null } {
  if (finishReason === "length") return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
  if (finishReason === "content_filter") return { status: "incomplete", incomplete_details: { reason: "content_filter" } };
  return { status: "completed", incomplete_details: null };
}

export function responseOf(completion: JsonObject, request: JsonObject, searches: readonly string[] = []): JsonObject {
  const choice = Array.isArray(completion.choices) && isObject(completion.choices[0]) ? completion.choices[0] : {};
  const message = isObject(choice.message) ? choice.message : {};
  const baseId = typeof completion.id === "string" ? completion.id : "chat";
  const output: JsonObject[] = searches.map((query, index) => webSearchCallItem(`ws_${baseId}_${index}`, query));
  if (typeof message.content === "string" && message.content !== "") {
    output.push({ ...messageItem(`msg_${baseId}`, message.content, "completed"), content: [outputText(message.content, responsesAnnotations(message.annotations))] });
  }
  for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    if (!isObject(call) || !isObject(call.function)) continue;
    output.push(functionCallItem(String(call.id), String(call.function.name), String(call.function.arguments ?? ""), "completed"));
  }
  return {
    id: `resp_${baseId}`,
    object: "response",
    created_at: typeof completion.created === "number" ? completion.created : Math.floor(Date.now() / 1000),
    model: completion.model ?? request.model,
    ...finalStatus(choice.finish_reason),
    error: null,
    output,
    ...echoedSettings(request),
    ...usageField(completion.usage),
  };
}
