/**
 * OpenAI chat messages as Gemini `contents` and `systemInstruction` (pure).
 * https://ai.google.dev/api/generate-content#request-body
 *
 * System and developer messages, wherever they stand, join `systemInstruction` in order. Users
 * speak as `user`, assistants as `model`; an assistant's `tool_calls` become `functionCall` parts
 * (arguments parsed; text that is not a JSON object is wrapped as `{"arguments": text}`), and a
 * tool message becomes a `functionResponse` part named after the call it answers (found by
 * `tool_call_id` among the earlier assistant messages). Gemini wants the turns to alternate, so
 * neighbouring turns of the same role merge into one (parallel calls' responses then share a turn,
 * as Gemini expects).
 */
import type { JsonObject } from "../provider.ts";
import { contentParts, contentText } from "./content-parts.ts";
import { signatureOf } from "./tool-call-ids.ts";
import { isObject, objectsOf, parseJson, stringOf } from "./values.ts";

export interface GeminiConversation {
  contents: JsonObject[];
  systemInstruction?: JsonObject;
}

export function toGeminiConversation(messages: unknown): GeminiConversation {
  const system: JsonObject[] = [];
  const contents: { role: "user" | "model"; parts: JsonObject[] }[] = [];
  const callNames = new Map<string, string>();
  const add = (role: "user" | "model", parts: JsonObject[]): void => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };

  for (const message of objectsOf(messages)) {
    switch (message.role) {
      case "system":
      case "developer": {
        const text = contentText(message.content);
        if (text !== "") system.push({ text });
        break;
      }
      case "user":
        add("user", contentParts(message.content));
        break;
      case "assistant":
        add("model", [...contentParts(message.content), ...functionCalls(message.tool_calls, callNames)]);
        break;
      case "tool": {
        const id = stringOf(message.tool_call_id) ?? "";
        add("user", [functionResponse(callNames.get(id) ?? id, message.content)]);
        break;
      }
      case "function":
        add("user", [functionResponse(stringOf(message.name) ?? "", message.content)]);
        break;
      default:
        break;
    }
  }
  const conversation: GeminiConversation = { contents };
  if (system.length > 0) conversation.systemInstruction = { parts: system };
  return conversation;
}

/** An assistant's tool calls as `functionCall` parts; their names are remembered by id for the tool messages. */
function functionCalls(toolCalls: unknown, callNames: Map<string, string>): JsonObject[] {
  const parts: JsonObject[] = [];
  for (const call of objectsOf(toolCalls)) {
    const fn = isObject(call.function) ? call.function : {};
    const name = stringOf(fn.name);
    if (name === undefined) continue;
    const id = stringOf(call.id);
    if (id !== undefined) callNames.set(id, name);
    const part: JsonObject = { functionCall: { name, args: argumentsObject(fn.arguments) } };
    const signature = id === undefined ? undefined : signatureOf(id);
    if (signature !== undefined) part.thoughtSignature = signature;
    parts.push(part);
  }
  return parts;
}

function argumentsObject(text: unknown): JsonObject {
  if (typeof text !== "string" || text.trim() === "") return {};
  const parsed = parseJson(text);
  return isObject(parsed) ? parsed : { arguments: text };
}

/**
 * A tool's answer as Gemini's `response` object: a JSON object as it is, anything else under
 * `output`, the key Gemini's docs name for a function's output.
 */
function functionResponse(name: string, content: unknown): JsonObject {
  const text = contentText(content);
  const parsed = parseJson(text);
  return { functionResponse: { name, response: isObject(parsed) ? parsed : { output: parsed ?? text } } };
}
