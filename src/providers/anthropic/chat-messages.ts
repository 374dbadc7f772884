/**
 * OpenAI chat messages as Messages API turns (pure). System and developer messages become the
 * top-level `system` blocks, wherever they stand; the rest alternate user and assistant, so
 * consecutive turns of one role are merged, and `tool` messages become `tool_result` blocks of a
 * user turn. Parts the Messages API has no counterpart for (audio input) pass as they are, and
 * the upstream's 400 names them.
 * https://docs.anthropic.com/en/api/messages
 * https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages
 */
import type { JsonObject } from "../provider.ts";

export type Block = JsonObject;

export interface Turn {
  role: "user" | "assistant";
  content: Block[];
}

export interface Conversation {
  system: Block[];
  turns: Turn[];
}

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** `data:<media type>;base64,<data>`: the parts of a data URL, or null when it is not one. */
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** An image part's source: a data URL as base64, anything else as a URL for Anthropic to fetch. */
function imageBlock(part: JsonObject): Block {
  const image = isObject(part.image_url) ? part.image_url : {};
  const url = typeof image.url === "string" ? image.url : "";
  const data = DATA_URL.exec(url);
  const source = data ? { type: "base64", media_type: data[1], data: data[2] } : { type: "url", url };
  return withCache({ type: "image", source }, part);
}

/** A PDF sent as a `file` part with inline data becomes a document block. */
function fileBlock(part: JsonObject): Block {
  const file = isObject(part.file) ? part.file : {};
  const data = typeof file.file_data === "string" ? DATA_URL.exec(file.file_data) : null;
  if (!data) return part;
  return withCache({ type: "document", source: { type: "base64", media_type: data[1], data: data[2] } }, part);
}

/** Keeps a part's `cache_control` marker (prompt caching) on the block made from it. */
function withCache(block: Block, part: JsonObject): Block {
  return part.cache_control === undefined ? block : { ...block, cache_control: part.cache_control };
}

/** A message's content as blocks; empty text is dropped (the API refuses empty text blocks). */
export function contentBlocks(content: unknown): Block[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  if (!Array.isArray(content)) return [];
  const blocks: Block[] = [];
  for (const part of content) {
    if (!isObject(part)) continue;
    if (part.type === "text" || part.type === "refusal") {
      const text = typeof part.text === "string" ? part.text : typeof part.refusal === "string" ? part.refusal : "";
      if (text !== "") blocks.push(withCache({ type: "text", text }, part));
    } else if (part.type === "image_url") blocks.push(imageBlock(part));
    else if (part.type === "file") blocks.push(fileBlock(part));
    else blocks.push(part);
  }
  return blocks;
}

/** An assistant's tool calls as `tool_use` blocks; arguments that are not a JSON object become `{}`. */
function toolUseBlocks(toolCalls: unknown): Block[] {
  if (!Array.isArray(toolCalls)) return [];
  const blocks: Block[] = [];
  for (const call of toolCalls) {
    if (!isObject(call) || !isObject(call.function)) continue;
    blocks.push({ type: "tool_use", id: call.id, name: call.function.name, input: parseArguments(call.function.arguments) });
  }
  return blocks;
}

function parseArguments(text: unknown): JsonObject {
  if (typeof text !== "string" || text === "") return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** A `tool` message as a `tool_result` block; text parts are kept as text blocks. */
function toolResultBlock(message: JsonObject): Block {
  const content = typeof message.content === "string" ? message.content : contentBlocks(message.content);
  return { type: "tool_result", tool_use_id: message.tool_call_id, content };
}

/** A cache marker on a whole message applies to its last block, where Anthropic reads it. */
function markLast(blocks: Block[], message: JsonObject): Block[] {
  const last = blocks.at(-1);
  if (message.cache_control === undefined || !last) return blocks;
  blocks[blocks.length - 1] = { ...last, cache_control: message.cache_control };
  return blocks;
}

/** Splits OpenAI messages into system blocks and alternating turns. Never throws. */
export function toConversation(messages: unknown): Conversation {
  const system: Block[] = [];
  const turns: Turn[] = [];
  const push = (role: Turn["role"], blocks: Block[]): void => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last && last.role === role) for (const block of blocks) last.content.push(block);
    else turns.push({ role, content: blocks });
  };
  if (!Array.isArray(messages)) return { system, turns };
  for (const message of messages) {
    if (!isObject(message)) continue;
    switch (message.role) {
      case "system":
      case "developer":
        for (const block of markLast(contentBlocks(message.content), message)) system.push(block);
        break;
      case "assistant":
        push("assistant", markLast([...contentBlocks(message.content), ...toolUseBlocks(message.tool_calls)], message));
        break;
      case "tool":
        push("user", markLast([toolResultBlock(message)], message));
        break;
      default:
        push("user", markLast(contentBlocks(message.content), message));
    }
  }
  for (const turn of turns) if (turn.role === "user") turn.content = toolResultsFirst(turn.content);
  return { system, turns };
}

/** The API wants a user turn's `tool_result` blocks before anything else in it. */
function toolResultsFirst(blocks: Block[]): Block[] {
  const results = blocks.filter((block) => block.type === "tool_result");
  if (results.length === 0 || results.length === blocks.length) return blocks;
  return [...results, ...blocks.filter((block) => block.type !== "tool_result")];
}
