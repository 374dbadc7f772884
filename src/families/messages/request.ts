/**
 * An Anthropic Messages request as an OpenAI chat completions request (pure). The body was
 * checked against `CreateMessageRequest`; what chat completions cannot say is refused (400,
 * naming the field) or, where nothing is lost but a hint, left out (`top_k`, `cache_control`,
 * thinking blocks of earlier turns).
 * https://docs.anthropic.com/en/api/messages
 * https://platform.openai.com/docs/api-reference/chat/create
 */
import { fail, GatewayError, ok, type Result } from "../../errors.ts";
import type { JsonObject } from "../../providers/provider.ts";
import { arrayField, isObject, numberField, objectField, stringField } from "../json-fields.ts";

/** Refused with a 400 naming the offending field. */
class Refusal {
  constructor(
    readonly message: string,
    readonly param: string,
  ) {}
}

/** The chat completions body of an Anthropic Messages body. Never throws. */
export function chatRequestFromMessages(body: JsonObject): Result<JsonObject, GatewayError> {
  try {
    return ok(translate(body));
  } catch (error) {
    if (error instanceof Refusal) return fail(new GatewayError("invalid_request", error.message, { param: error.param }));
    throw error;
  }
}

function translate(body: JsonObject): JsonObject {
  const chat: JsonObject = { model: body.model };
  const system = systemText(body.system);
  const messages: JsonObject[] = system === null ? [] : [{ role: "system", content: system }];
  arrayField(body, "messages").forEach((message, index) => messages.push(...chatMessages(message, `messages.${index}`)));
  chat.messages = messages;
  // OpenAI's current name: its reasoning models refuse the deprecated `max_tokens`.
  chat.max_completion_tokens = body.max_tokens;
  const stops = arrayField(body, "stop_sequences");
  if (stops.length > 0) chat.stop = stops;
  for (const name of ["temperature", "top_p"] as const) if (typeof body[name] === "number") chat[name] = body[name];
  const user = stringField(objectField(body, "metadata"), "user_id");
  if (user !== null) chat.user = user;
  const effort = reasoningEffort(objectField(body, "thinking"));
  if (effort !== null) chat.reasoning_effort = effort;
  const tools = arrayField(body, "tools");
  if (tools.length > 0) chat.tools = tools.map((tool, index) => chatTool(tool, `tools.${index}`));
  Object.assign(chat, toolChoice(objectField(body, "tool_choice"), tools.length > 0));
  if (body.stream === true) {
    chat.stream = true;
    // Anthropic's `message_delta` carries the usage: the chat stream must report it.
    chat.stream_options = { include_usage: true };
  }
  return chat;
}

/** `system` as one string (blocks joined by blank lines); null when absent or empty. */
function systemText(system: unknown): string | null {
  if (typeof system === "string") return system.length > 0 ? system : null;
  if (!Array.isArray(system)) return null;
  const texts = system.map((block, index) => {
    if (stringField(block, "type") !== "text") throw new Refusal(`A system block must be text, not ${String(stringField(block, "type"))}.`, `system.${index}.type`);
    return stringField(block, "text") ?? "";
  });
  return texts.length > 0 ? texts.join("\n\n") : null;
}

/**
 * One Anthropic message as chat messages. A user turn's `tool_result` blocks become `tool`
 * messages (first, as chat wants them right after the assistant's calls), its other blocks one
 * user message; an assistant turn is one message with its text and `tool_calls`.
 */
function chatMessages(message: unknown, at: string): JsonObject[] {
  const role = stringField(message, "role");
  const content = isObject(message) ? message.content : undefined;
  if (typeof content === "string") return [{ role, content }];
  const blocks = Array.isArray(content) ? content : [];
  return role === "assistant" ? [assistantMessage(blocks, at)] : userMessages(blocks, at);
}

function userMessages(blocks: unknown[], at: string): JsonObject[] {
  const tools: JsonObject[] = [];
  const parts: JsonObject[] = [];
  blocks.forEach((block, index) => {
    const where = `${at}.content.${index}`;
    const type = stringField(block, "type");
    if (type === "text") parts.push({ type: "text", text: stringField(block, "text") ?? "" });
    else if (type === "image") parts.push(imagePart(block, where));
    else if (type === "tool_result") {
      const result = toolResult(block, where);
      tools.push(result.message);
      // Chat's tool messages hold text only: a result's images follow in the user message.
      parts.push(...result.images);
    } else throw unsupportedBlock(type, where);
  });
  return parts.length > 0 ? [...tools, { role: "user", content: parts }] : tools;
}

function assistantMessage(blocks: unknown[], at: string): JsonObject {
  const texts: string[] = [];
  const calls: JsonObject[] = [];
  blocks.forEach((block, index) => {
    const type = stringField(block, "type");
    if (type === "text") texts.push(stringField(block, "text") ?? "");
    else if (type === "tool_use") {
      const input = isObject(block) ? (block.input ?? {}) : {};
      calls.push({ id: stringField(block, "id"), type: "function", function: { name: stringField(block, "name"), arguments: JSON.stringify(input) } });
    } else if (type === "thinking" || type === "redacted_thinking") {
      // Earlier reasoning has no place in a chat request; the model reasons afresh.
    } else throw unsupportedBlock(type, `${at}.content.${index}`);
  });
  const message: JsonObject = { role: "assistant", content: texts.length > 0 ? texts.join("") : null };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

function toolResult(block: unknown, at: string): { message: JsonObject; images: JsonObject[] } {
  const content = isObject(block) ? block.content : undefined;
  const texts: string[] = [];
  const images: JsonObject[] = [];
  if (typeof content === "string") texts.push(content);
  else if (Array.isArray(content)) {
    content.forEach((part, index) => {
      const type = stringField(part, "type");
      if (type === "text") texts.push(stringField(part, "text") ?? "");
      else if (type === "image") images.push(imagePart(part, `${at}.content.${index}`));
      else throw unsupportedBlock(type, `${at}.content.${index}`);
    });
  }
  return { message: { role: "tool", tool_call_id: stringField(block, "tool_use_id"), content: texts.join("\n") }, images };
}

/** An image block as a chat `image_url` part: base64 sources as a data URL. */
function imagePart(block: unknown, at: string): JsonObject {
  const source = objectField(block, "source");
  const kind = stringField(source, "type");
  if (kind === "base64") {
    return { type: "image_url", image_url: { url: `data:${stringField(source, "media_type") ?? "image/png"};base64,${stringField(source, "data") ?? ""}` } };
  }
  if (kind === "url") return { type: "image_url", image_url: { url: stringField(source, "url") ?? "" } };
  throw new Refusal(`An image source must be base64 or url (not ${String(kind)}) when the target speaks chat completions.`, `${at}.source.type`);
}

function unsupportedBlock(type: string | null, at: string): Refusal {
  return new Refusal(`Content blocks of type ${String(type)} cannot be sent to a chat-completions target through the gateway.`, `${at}.type`);
}

/** A client tool as a chat function; Anthropic's server tools (web search, code execution…) have no chat form. */
function chatTool(tool: unknown, at: string): JsonObject {
  const type = stringField(tool, "type");
  if (type !== null && type !== "custom") throw new Refusal(`Server tools (${type}) cannot be sent to a chat-completions target through the gateway.`, `${at}.type`);
  const fn: JsonObject = { name: stringField(tool, "name"), parameters: objectField(tool, "input_schema") ?? { type: "object" } };
  const description = stringField(tool, "description");
  if (description !== null) fn.description = description;
  return { type: "function", function: fn };
}

/** `tool_choice` (and `disable_parallel_tool_use`) as chat's fields. */
function toolChoice(choice: JsonObject | null, hasTools: boolean): JsonObject {
  if (!choice) return {};
  const fields: JsonObject = {};
  const type = stringField(choice, "type");
  if (type === "auto") fields.tool_choice = "auto";
  else if (type === "any") fields.tool_choice = "required";
  else if (type === "none") fields.tool_choice = "none";
  else if (type === "tool") fields.tool_choice = { type: "function", function: { name: stringField(choice, "name") } };
  // Chat refuses `parallel_tool_calls` without tools.
  if (choice.disable_parallel_tool_use === true && hasTools) fields.parallel_tool_calls = false;
  return fields;
}

/**
 * Extended thinking as `reasoning_effort`, by its budget: chat has levels, not budgets.
 * `disabled` and `adaptive` (the model decides) send none: the model's default.
 */
export function reasoningEffort(thinking: JsonObject | null): "low" | "medium" | "high" | null {
  if (stringField(thinking, "type") !== "enabled") return null;
  const budget = numberField(thinking, "budget_tokens") ?? 0;
  if (budget <= 4096) return "low";
  return budget <= 16384 ? "medium" : "high";
}
