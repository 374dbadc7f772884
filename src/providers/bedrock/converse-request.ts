/**
 * OpenAI chat completions → Bedrock Converse / ConverseStream (pure).
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 * https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-call.html
 */
import { GatewayError } from "../../errors.ts";
import type { JsonObject } from "../provider.ts";
import { converseTools } from "./converse-tools.ts";
import { noWebSearch } from "../web-search.ts";
import { reasoningFields } from "./reasoning.ts";

type Block = JsonObject;
interface ConverseMessage {
  role: "user" | "assistant";
  content: Block[];
}

/** Tokens left for the answer beyond a thinking budget when the request sets no limit. */
const ANSWER_ROOM = 4096;

/** Converse's image formats, by the media type of a data URL. */
const IMAGE_FORMATS: Readonly<Record<string, string>> = { "image/png": "png", "image/jpeg": "jpeg", "image/jpg": "jpeg", "image/gif": "gif", "image/webp": "webp" };

/**
 * The Converse body and path for an OpenAI chat request. The model id goes into the path,
 * percent-encoded (ids hold `:`, inference-profile ARNs hold `/`). A request Converse cannot
 * express (an image by URL, `n` > 1, a response format) is a 400 naming the field.
 */
export function converseRequest(body: JsonObject, context: { model: string; stream: boolean }): { body: JsonObject; path: string } | GatewayError {
  if (typeof body.n === "number" && body.n > 1) return invalid("Bedrock's Converse API returns one choice: n must be 1.", "n");
  if (body.web_search_options !== undefined && body.web_search_options !== null) return noWebSearch("Bedrock", "web_search_options", "web_search_options");
  const format = body.response_format as JsonObject | undefined;
  if (format && format.type !== "text") return invalid("Bedrock's Converse API has no response format: describe the format in the prompt, or use a tool.", "response_format");

  const system: Block[] = [];
  const messages: ConverseMessage[] = [];
  const list = Array.isArray(body.messages) ? (body.messages as JsonObject[]) : [];
  for (const [index, message] of list.entries()) {
    const param = `messages[${index}]`;
    const translated = converseMessage(message, param);
    if (translated instanceof GatewayError) return translated;
    if ("system" in translated) system.push(...translated.system);
    else if (translated.content.length > 0) append(messages, translated);
  }

  const converse: JsonObject = { messages };
  if (system.length > 0) converse.system = system;
  const inference = inferenceConfig(body);
  const additional = reasoningFields(context.model, body.reasoning_effort);
  // Claude's answer must have room beyond its thinking budget: without a limit, give it some.
  const budget = ((additional?.reasoning_config as JsonObject | undefined)?.budget_tokens as number | undefined) ?? 0;
  if (budget > 0 && inference.maxTokens === undefined) inference.maxTokens = budget + ANSWER_ROOM;
  if (Object.keys(inference).length > 0) converse.inferenceConfig = inference;
  const hasToolBlocks = messages.some((message) => message.content.some((block) => "toolUse" in block || "toolResult" in block));
  const tools = converseTools(body, hasToolBlocks);
  if (tools instanceof GatewayError) return tools;
  if (tools) converse.toolConfig = tools;
  if (additional) converse.additionalModelRequestFields = additional;

  const operation = context.stream ? "converse-stream" : "converse";
  return { body: converse, path: `/model/${encodeURIComponent(context.model)}/${operation}` };
}

/** Converse wants user and assistant turns to alternate: consecutive turns of one role are one turn. */
function append(messages: ConverseMessage[], message: ConverseMessage): void {
  const last = messages.at(-1);
  if (last && last.role === message.role) last.content.push(...message.content);
  else messages.push(message);
}

function converseMessage(message: JsonObject, param: string): ConverseMessage | { system: Block[] } | GatewayError {
  switch (message.role) {
    case "system":
    case "developer":
      return { system: texts(message.content).map((text) => ({ text })) };
    case "user":
      return userMessage(message.content, param);
    case "assistant":
      return assistantMessage(message, param);
    case "tool":
      return {
        role: "user",
        content: [{ toolResult: { toolUseId: String(message.tool_call_id ?? ""), content: [{ text: texts(message.content).join("") || " " }] } }],
      };
    default:
      return invalid(`${param} has role "${String(message.role)}", which Bedrock's Converse API does not take.`, `${param}.role`);
  }
}

function userMessage(content: unknown, param: string): ConverseMessage | GatewayError {
  if (typeof content === "string") return { role: "user", content: content ? [{ text: content }] : [] };
  const blocks: Block[] = [];
  for (const [index, part] of (Array.isArray(content) ? (content as JsonObject[]) : []).entries()) {
    const partParam = `${param}.content[${index}]`;
    if (part.type === "text") {
      if (typeof part.text === "string" && part.text) blocks.push({ text: part.text });
    } else if (part.type === "image_url") {
      const image = imageBlock(part.image_url as JsonObject | undefined, `${partParam}.image_url.url`);
      if (image instanceof GatewayError) return image;
      blocks.push(image);
    } else {
      return invalid(`${partParam} is a "${String(part.type)}" part, which the gateway does not send to Bedrock.`, `${partParam}.type`);
    }
  }
  return { role: "user", content: blocks };
}

/** An image as bytes: Bedrock cannot fetch a URL, so only a base64 data URL can go. */
function imageBlock(imageUrl: JsonObject | undefined, param: string): Block | GatewayError {
  const url = typeof imageUrl?.url === "string" ? imageUrl.url : "";
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (!match) return invalid(`${param} must be a base64 data URL (data:image/png;base64,…): Bedrock cannot fetch images by URL.`, param);
  const format = IMAGE_FORMATS[match[1]!.toLowerCase()];
  if (!format) return invalid(`${param} is ${match[1]}; Bedrock takes PNG, JPEG, GIF and WebP images.`, param);
  // Blobs travel base64-encoded in Converse's JSON, as the data URL already holds them.
  return { image: { format, source: { bytes: match[2]!.replace(/\s+/g, "") } } };
}

function assistantMessage(message: JsonObject, param: string): ConverseMessage | GatewayError {
  const content: Block[] = texts(message.content)
    .filter((text) => text.trim() !== "")
    .map((text) => ({ text }));
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as JsonObject[]) : [];
  for (const [index, call] of calls.entries()) {
    const fn = (call.function ?? {}) as JsonObject;
    const argsParam = `${param}.tool_calls[${index}].function.arguments`;
    let input: unknown = {};
    try {
      input = typeof fn.arguments === "string" && fn.arguments.trim() !== "" ? JSON.parse(fn.arguments) : {};
    } catch {
      return invalid(`${argsParam} is not JSON; Bedrock takes a tool call's input as a JSON value.`, argsParam);
    }
    content.push({ toolUse: { toolUseId: String(call.id ?? ""), name: String(fn.name ?? ""), input } });
  }
  return { role: "assistant", content };
}

/** The texts of a message's content: a string, or its text (and refusal) parts. */
function texts(content: unknown): string[] {
  if (typeof content === "string") return content ? [content] : [];
  if (!Array.isArray(content)) return [];
  return (content as JsonObject[]).flatMap((part) => {
    const text = part.type === "refusal" ? part.refusal : part.text;
    return typeof text === "string" && text ? [text] : [];
  });
}

function inferenceConfig(body: JsonObject): JsonObject {
  const config: JsonObject = {};
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (typeof maxTokens === "number") config.maxTokens = maxTokens;
  if (typeof body.temperature === "number") config.temperature = body.temperature;
  if (typeof body.top_p === "number") config.topP = body.top_p;
  if (typeof body.stop === "string") config.stopSequences = [body.stop];
  else if (Array.isArray(body.stop) && body.stop.length > 0) config.stopSequences = body.stop;
  return config;
}

function invalid(message: string, param: string): GatewayError {
  return new GatewayError("invalid_request", message, { param });
}
