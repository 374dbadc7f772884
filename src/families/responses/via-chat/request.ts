/**
 * A Responses request as a chat completions request, for providers that have chat but no
 * Responses API of their own (pure). Built-in tools such a provider cannot run, and state it
 * cannot keep (`background`, a `previous_response_id` the gateway did not keep), are refused
 * with a 400 naming the field, never dropped in silence.
 * https://platform.openai.com/docs/api-reference/responses/create
 */
import { GatewayError } from "../../../errors.ts";
import type { JsonObject, Provider } from "../../../providers/provider.ts";
import { noWebSearch, WEB_SEARCH_TOOLS, webSearchOptionsOf } from "../../../providers/web-search.ts";

type ChatMessage = JsonObject;

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** Fields passed on under the same name. */
const SAME_NAME = ["model", "temperature", "top_p", "stream", "user", "parallel_tool_calls", "metadata", "store", "service_tier", "top_logprobs"] as const;

export function chatRequestOf(body: JsonObject, provider: Pick<Provider, "name" | "webSearch"> = { name: "This provider" }): { body: JsonObject } | { error: GatewayError } {
  // A previous response the gateway kept was continued before this point (`families/responses/kept/`).
  if (typeof body.previous_response_id === "string") {
    return { error: new GatewayError("invalid_request", "previous_response_id names no response the gateway kept in this workspace, and this provider keeps none of its own.", { param: "previous_response_id" }) };
  }
  for (const field of ["conversation", "background"] as const) {
    if (body[field] !== undefined && body[field] !== null && body[field] !== false) {
      return { error: new GatewayError("invalid_request", `${field} needs a provider with a Responses API of its own; this one is reached through chat completions.`, { param: field }) };
    }
  }
  const chat: JsonObject = {};
  for (const field of SAME_NAME) if (body[field] !== undefined && field !== "store") chat[field] = body[field];
  const messages: ChatMessage[] = [];
  if (typeof body.instructions === "string" && body.instructions !== "") messages.push({ role: "system", content: body.instructions });
  const input = inputMessages(body.input);
  if ("error" in input) return input;
  messages.push(...input.messages);
  chat.messages = messages;
  if (typeof body.max_output_tokens === "number") chat.max_completion_tokens = body.max_output_tokens;
  const effort = isObject(body.reasoning) ? body.reasoning.effort : undefined;
  if (typeof effort === "string") chat.reasoning_effort = effort;
  const format = isObject(body.text) && isObject(body.text.format) ? body.text.format : undefined;
  if (format) chat.response_format = responseFormat(format);
  if (Array.isArray(body.tools) && body.tools.length > 0) {
    const tools = chatTools(body.tools, provider);
    if ("error" in tools) return tools;
    if (tools.tools.length > 0) chat.tools = tools.tools;
    if (tools.webSearch) chat.web_search_options = tools.webSearch;
  }
  if (body.tool_choice !== undefined) chat.tool_choice = toolChoice(body.tool_choice);
  // The final usage is what the Responses answer reports: always ask for it.
  if (body.stream === true) chat.stream_options = { include_usage: true };
  return { body: chat };
}

function responseFormat(format: JsonObject): JsonObject {
  if (format.type !== "json_schema") return { type: format.type };
  const { type: _type, ...schema } = format;
  return { type: "json_schema", json_schema: schema };
}

/** Function tools as chat tools, and a web search tool as `web_search_options` where the provider searches. */
function chatTools(tools: unknown[], provider: Pick<Provider, "name" | "webSearch">): { tools: JsonObject[]; webSearch?: JsonObject } | { error: GatewayError } {
  const converted: JsonObject[] = [];
  let webSearch: JsonObject | undefined;
  for (const [index, tool] of tools.entries()) {
    if (isObject(tool) && WEB_SEARCH_TOOLS.has(tool.type)) {
      if (!provider.webSearch) return { error: noWebSearch(provider.name, String(tool.type), `tools.${index}`) };
      webSearch = webSearchOptionsOf(tool);
      continue;
    }
    if (!isObject(tool) || tool.type !== "function") {
      const type = isObject(tool) && typeof tool.type === "string" ? tool.type : "unknown";
      return {
        error: new GatewayError("invalid_request", `The built-in tool "${type.slice(0, 64)}" needs a provider that runs it; this one only takes function tools.`, {
          param: `tools.${index}`,
        }),
      };
    }
    const fn: JsonObject = { name: tool.name };
    if (tool.description !== undefined) fn.description = tool.description;
    if (tool.parameters !== undefined) fn.parameters = tool.parameters;
    if (tool.strict !== undefined) fn.strict = tool.strict;
    converted.push({ type: "function", function: fn });
  }
  return webSearch ? { tools: converted, webSearch } : { tools: converted };
}

function toolChoice(choice: unknown): unknown {
  if (isObject(choice) && choice.type === "function") return { type: "function", function: { name: choice.name } };
  return choice;
}

/** The input as chat messages: a string is one user message; items map one by one. */
function inputMessages(input: unknown): { messages: ChatMessage[] } | { error: GatewayError } {
  if (typeof input === "string") return { messages: [{ role: "user", content: input }] };
  if (!Array.isArray(input)) return { messages: [] };
  const messages: ChatMessage[] = [];
  for (const [index, item] of input.entries()) {
    if (!isObject(item)) continue;
    const type = item.type ?? "message";
    if (type === "message") {
      const content = messageContent(item.content, `input.${index}.content`);
      if ("error" in content) return content;
      messages.push({ role: item.role === "developer" ? "system" : item.role, content: content.content });
    } else if (type === "function_call") {
      const call = { id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } };
      const last = messages.at(-1);
      // Parallel calls of one turn are one assistant message.
      if (last && last.role === "assistant" && Array.isArray(last.tool_calls) && last.content === null) (last.tool_calls as unknown[]).push(call);
      else messages.push({ role: "assistant", content: null, tool_calls: [call] });
    } else if (type === "function_call_output") {
      messages.push({ role: "tool", tool_call_id: item.call_id, content: typeof item.output === "string" ? item.output : JSON.stringify(item.output) });
    } else if (type === "web_search_call" || (typeof type === "string" && type.startsWith("mcp_"))) {
      // A kept conversation's search and tool-run items: the model's messages around them carry their results.
      continue;
    } else if (type !== "reasoning") {
      return { error: new GatewayError("invalid_request", `Input items of type "${String(type).slice(0, 64)}" need a provider with a Responses API of its own.`, { param: `input.${index}` }) };
    }
  }
  return { messages };
}

function messageContent(content: unknown, param: string): { content: unknown } | { error: GatewayError } {
  if (typeof content === "string") return { content };
  if (!Array.isArray(content)) return { content: "" };
  const parts: JsonObject[] = [];
  for (const [index, part] of content.entries()) {
    if (!isObject(part)) continue;
    if (part.type === "input_text" || part.type === "output_text") parts.push({ type: "text", text: part.text });
    else if (part.type === "input_image" && typeof part.image_url === "string") {
      parts.push({ type: "image_url", image_url: { url: part.image_url, ...(part.detail !== undefined && { detail: part.detail }) } });
    } else {
      return { error: new GatewayError("invalid_request", `Content parts of type "${String(part.type).slice(0, 64)}" need a provider with a Responses API of its own.`, { param: `${param}.${index}` }) };
    }
  }
  return { content: parts };
}
