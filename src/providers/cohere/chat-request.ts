/**
 * A chat completion request as a Cohere v2 Chat request (pure), sent to `POST /v2/chat`.
 * https://docs.cohere.com/reference/chat
 * https://docs.cohere.com/docs/tool-use-overview
 *
 * - messages: `system` and `developer` → `system`; user text and `image_url` parts as they are;
 *   assistant `tool_calls` and tool results (`tool_call_id`) in Cohere's own (OpenAI-like) shape.
 * - tools as they are (`{type:"function", function}`); `tool_choice` `required` → `REQUIRED`,
 *   `none` → `NONE`, `auto` → left out; a named function cannot be forced there: refused.
 * - `max_completion_tokens`/`max_tokens` → `max_tokens`; `top_p` → `p`; `stop` → `stop_sequences`;
 *   `temperature`, `seed`, penalties as they are; `response_format` `json_object` as it is and
 *   `json_schema` as `{type:"json_object", json_schema}`.
 * - Left out: `user`, `metadata`, `store`, `stream_options` (Cohere always reports usage),
 *   `parallel_tool_calls: true` (its default). Any other field is refused with a 400 naming it.
 */
import { GatewayError } from "../../errors.ts";
import type { JsonObject, OperationTransforms } from "../provider.ts";

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);
const sent = (value: unknown): boolean => value !== undefined && value !== null;

/** Fields translated below, and fields that have no effect on Cohere and are left out. */
const TRANSLATED = new Set(["model", "messages", "stream", "tools", "tool_choice", "max_tokens", "max_completion_tokens", "temperature", "top_p", "stop", "seed", "frequency_penalty", "presence_penalty", "response_format", "n"]);
const LEFT_OUT = new Set(["user", "metadata", "store", "stream_options", "parallel_tool_calls"]);

class Refusal extends Error {
  constructor(
    message: string,
    readonly param: string,
  ) {
    super(message);
  }
}

const refusal = (param: string, reason: string): Refusal => new Refusal(`Cohere ${reason}: leave out \`${param}\`, or send the request to another provider.`, param);

function textOf(content: unknown, at: string): string {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  if (!Array.isArray(content)) throw refusal(at, "takes message content as text or text parts");
  return content
    .map((part, index) => {
      if (isObject(part) && part.type === "text" && typeof part.text === "string") return part.text;
      throw refusal(`${at}[${index}]`, "takes only text parts here");
    })
    .join("");
}

function userContent(content: unknown, at: string): unknown {
  if (!Array.isArray(content)) return textOf(content, at);
  return content.map((part, index) => {
    if (isObject(part) && part.type === "text" && typeof part.text === "string") return { type: "text", text: part.text };
    if (isObject(part) && part.type === "image_url" && isObject(part.image_url) && typeof part.image_url.url === "string") return { type: "image_url", image_url: { url: part.image_url.url } };
    throw refusal(`${at}[${index}]`, "takes text and image_url parts only");
  });
}

function toolCalls(calls: unknown, at: string): JsonObject[] {
  if (!Array.isArray(calls)) return [];
  return calls.map((call, index) => {
    if (!isObject(call) || !isObject(call.function) || typeof call.function.name !== "string") throw refusal(`${at}[${index}]`, "needs a function tool call here");
    const { arguments: args } = call.function;
    // Arguments that are not JSON text would reach the model as a different call: refused, not replaced.
    if (sent(args) && typeof args !== "string") throw refusal(`${at}[${index}].function.arguments`, "takes a tool call's arguments as a JSON string");
    return { id: call.id, type: "function", function: { name: call.function.name, arguments: typeof args === "string" ? args : "{}" } };
  });
}

function messages(list: unknown): JsonObject[] {
  if (!Array.isArray(list)) return [];
  return list.map((message, index) => {
    const at = `messages[${index}]`;
    if (!isObject(message)) throw refusal(at, "takes messages as objects");
    switch (message.role) {
      case "system":
      case "developer":
        return { role: "system", content: textOf(message.content, `${at}.content`) };
      case "user":
        return { role: "user", content: userContent(message.content, `${at}.content`) };
      case "assistant": {
        const out: JsonObject = { role: "assistant" };
        const text = textOf(message.content, `${at}.content`);
        const calls = toolCalls(message.tool_calls, `${at}.tool_calls`);
        if (calls.length > 0) out.tool_calls = calls;
        if (text !== "" || calls.length === 0) out.content = text;
        return out;
      }
      case "tool":
        return { role: "tool", tool_call_id: message.tool_call_id, content: textOf(message.content, `${at}.content`) };
      default:
        throw refusal(`${at}.role`, `has no ${JSON.stringify(message.role)} role`);
    }
  });
}

function toolChoice(choice: unknown): string | undefined {
  if (!sent(choice) || choice === "auto") return undefined;
  if (choice === "required") return "REQUIRED";
  if (choice === "none") return "NONE";
  throw refusal("tool_choice", "cannot force one named tool (only `auto`, `required` or `none`)");
}

function responseFormat(format: unknown): JsonObject | undefined {
  if (!isObject(format) || format.type === "text") return undefined;
  if (format.type === "json_object") return { type: "json_object" };
  if (format.type === "json_schema" && isObject(format.json_schema) && isObject(format.json_schema.schema)) return { type: "json_object", json_schema: format.json_schema.schema };
  throw refusal("response_format", "takes response_format `text`, `json_object` or `json_schema` with a schema");
}

function cohereChatBody(body: JsonObject, model: string, stream: boolean): JsonObject {
  for (const [key, value] of Object.entries(body)) {
    if (!sent(value) || TRANSLATED.has(key) || LEFT_OUT.has(key)) continue;
    throw refusal(key, `does not accept \`${key}\``);
  }
  if (sent(body.n) && body.n !== 1) throw refusal("n", "answers one choice only (n: 1)");
  if (body.parallel_tool_calls === false) throw refusal("parallel_tool_calls", "cannot turn parallel tool calls off");
  const out: JsonObject = { model, messages: messages(body.messages) };
  if (Array.isArray(body.tools) && body.tools.length > 0) {
    out.tools = body.tools.map((tool, index) => {
      if (!isObject(tool) || tool.type !== "function" || !isObject(tool.function)) throw refusal(`tools[${index}]`, "takes function tools only");
      const { name, description, parameters } = tool.function;
      return { type: "function", function: { name, ...(description === undefined ? {} : { description }), parameters: isObject(parameters) ? parameters : { type: "object", properties: {} } } };
    });
    const choice = toolChoice(body.tool_choice);
    if (choice) out.tool_choice = choice;
  }
  const cap = body.max_completion_tokens ?? body.max_tokens;
  if (typeof cap === "number") out.max_tokens = cap;
  if (typeof body.top_p === "number") out.p = body.top_p;
  for (const key of ["temperature", "seed", "frequency_penalty", "presence_penalty"] as const) if (typeof body[key] === "number") out[key] = body[key];
  if (typeof body.stop === "string") out.stop_sequences = [body.stop];
  else if (Array.isArray(body.stop) && body.stop.length > 0) out.stop_sequences = body.stop;
  const format = responseFormat(body.response_format);
  if (format) out.response_format = format;
  if (stream) out.stream = true;
  return out;
}

export const cohereChatRequest: NonNullable<OperationTransforms["request"]> = (body, { model, stream }) => {
  try {
    return { body: cohereChatBody(body, model, stream), path: "/v2/chat" };
  } catch (error) {
    if (error instanceof Refusal) return { error: new GatewayError("invalid_request", error.message, { param: error.param }) };
    throw error;
  }
};
