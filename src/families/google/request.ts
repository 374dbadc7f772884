/**
 * A Gemini API `GenerateContentRequest` as an OpenAI chat completions request (pure). The body
 * was checked against `GeminiGenerateContentRequest`; the model and whether to stream come from
 * the path. What chat completions cannot say is refused (400, naming the field) or, where nothing
 * is lost but a hint, left out (`safetySettings`, `topK`, earlier turns' thoughts).
 * https://ai.google.dev/api/generate-content#request-body
 * https://platform.openai.com/docs/api-reference/chat/create
 */
import { fail, GatewayError, ok, type Result } from "../../errors.ts";
import type { JsonObject } from "../../providers/provider.ts";
import { arrayField, isObject, numberField, objectField, Refusal, stringField } from "./json.ts";
import { jsonSchemaFromGemini } from "./schema.ts";

/** The chat completions body of a Gemini body, for the path's model. Never throws. */
export function chatRequestFromGemini(body: JsonObject, context: { model: string; stream: boolean }): Result<JsonObject, GatewayError> {
  try {
    return ok(translate(body, context));
  } catch (error) {
    if (error instanceof Refusal) return fail(new GatewayError("invalid_request", error.message, { param: error.param }));
    throw error;
  }
}

function translate(body: JsonObject, { model, stream }: { model: string; stream: boolean }): JsonObject {
  if (typeof body.cachedContent === "string" && body.cachedContent !== "") {
    throw new Refusal("cachedContent names a Gemini cache, which cannot be read when the request is translated to chat completions.", "cachedContent");
  }
  const chat: JsonObject = { model };
  const messages: JsonObject[] = [];
  const system = systemText(objectField(body, "systemInstruction"));
  if (system !== null) messages.push({ role: "system", content: system });
  const calls = new CallBook();
  arrayField(body, "contents").forEach((content, index) => messages.push(...chatMessages(content, index, calls)));
  chat.messages = messages;
  const tools = chatTools(arrayField(body, "tools"));
  const choice = toolChoice(objectField(objectField(body, "toolConfig"), "functionCallingConfig"), tools);
  if (choice.tools.length > 0) chat.tools = choice.tools;
  if (choice.tool_choice !== undefined) chat.tool_choice = choice.tool_choice;
  Object.assign(chat, generationFields(objectField(body, "generationConfig")));
  if (stream) {
    chat.stream = true;
    // The last Gemini event carries `usageMetadata`: the chat stream must report its usage.
    chat.stream_options = { include_usage: true };
  }
  return chat;
}

/** `systemInstruction`'s text parts as one string; null when there is none. */
function systemText(instruction: JsonObject | null): string | null {
  if (!instruction) return null;
  const texts = arrayField(instruction, "parts").map((part, index) => {
    const text = stringField(part, "text");
    if (text === null) throw new Refusal("A systemInstruction part must be text when the target speaks chat completions.", `systemInstruction.parts.${index}`);
    return text;
  });
  const joined = texts.join("");
  return joined === "" ? null : joined;
}

/**
 * The function calls of the conversation so far, so that each `functionResponse` answers one:
 * chat ties a tool message to its call by id, Gemini by id when the client kept it, else by name.
 */
class CallBook {
  private readonly open: { id: string; name: string }[] = [];

  call(name: string, id: string): void {
    this.open.push({ id, name });
  }

  /** The id of the earliest unanswered call this response answers, which it closes; null when none. */
  answer(name: string, id: string | null): string | null {
    const at = this.open.findIndex((call) => (id !== null && call.id === id) || (id === null && call.name === name));
    const byName = at === -1 ? this.open.findIndex((call) => call.name === name) : at;
    if (byName === -1) return null;
    return this.open.splice(byName, 1)[0]!.id;
  }
}

/** One Gemini content as chat messages: a model turn is one assistant message; a user turn its tool results, then its other parts. */
function chatMessages(content: unknown, turn: number, calls: CallBook): JsonObject[] {
  const parts = arrayField(content, "parts");
  return stringField(content, "role") === "model" ? [assistantMessage(parts, turn, calls)] : userMessages(parts, `contents.${turn}`, calls);
}

function userMessages(parts: unknown[], at: string, calls: CallBook): JsonObject[] {
  const tools: JsonObject[] = [];
  const chatParts: JsonObject[] = [];
  parts.forEach((part, index) => {
    const where = `${at}.parts.${index}`;
    if (!isObject(part)) throw unsupportedPart(where);
    if (typeof part.text === "string") {
      // A thought is the model's; in a user turn it has no meaning for chat.
      if (part.thought !== true) chatParts.push({ type: "text", text: part.text });
    } else if (isObject(part.inlineData)) chatParts.push(inlinePart(part.inlineData, `${where}.inlineData`));
    else if (isObject(part.fileData)) chatParts.push(filePart(part.fileData, `${where}.fileData`));
    else if (isObject(part.functionResponse)) tools.push(toolMessage(part.functionResponse, `${where}.functionResponse`, calls));
    else if (isObject(part.functionCall)) throw new Refusal("A functionCall part belongs in a model turn.", `${where}.functionCall`);
    else throw unsupportedPart(where);
  });
  if (chatParts.length === 0) return tools;
  const only = chatParts.length === 1 && chatParts[0]!.type === "text" ? (chatParts[0]!.text as string) : null;
  return [...tools, { role: "user", content: only ?? chatParts }];
}

function assistantMessage(parts: unknown[], turn: number, calls: CallBook): JsonObject {
  const at = `contents.${turn}`;
  const texts: string[] = [];
  const toolCalls: JsonObject[] = [];
  parts.forEach((part, index) => {
    const where = `${at}.parts.${index}`;
    if (!isObject(part)) throw unsupportedPart(where);
    if (typeof part.text === "string") {
      // Earlier thoughts have no place in a chat request; the model reasons afresh.
      if (part.thought !== true) texts.push(part.text);
    } else if (isObject(part.functionCall)) {
      const name = stringField(part.functionCall, "name") ?? "";
      // Gemini's calls carry an id only when the client kept one: chat needs one to tie the result.
      const id = stringField(part.functionCall, "id") || `call_${turn}_${index}`;
      calls.call(name, id);
      toolCalls.push({ id, type: "function", function: { name, arguments: JSON.stringify(objectField(part.functionCall, "args") ?? {}) } });
    } else if (part.thoughtSignature !== undefined && Object.keys(part).every((key) => key === "thoughtSignature" || key === "thought")) {
      // A bare thought signature is Gemini's own bookkeeping: nothing to send.
    } else throw new Refusal("A model turn sent to a chat-completions target may hold text and functionCall parts only.", where);
  });
  const message: JsonObject = { role: "assistant", content: texts.length > 0 ? texts.join("") : toolCalls.length > 0 ? null : "" };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return message;
}

function toolMessage(response: JsonObject, at: string, calls: CallBook): JsonObject {
  const name = stringField(response, "name") ?? "";
  const id = calls.answer(name, stringField(response, "id") || null);
  if (id === null) throw new Refusal(`This functionResponse answers no earlier functionCall named ${name}: chat completions tie every tool result to its call.`, `${at}.name`);
  return { role: "tool", tool_call_id: id, content: JSON.stringify(objectField(response, "response") ?? {}) };
}

/** The audio formats chat completions take inline, by MIME type. */
const AUDIO_FORMATS: Readonly<Record<string, string>> = { "audio/wav": "wav", "audio/x-wav": "wav", "audio/mp3": "mp3", "audio/mpeg": "mp3" };

/** Inline data as a chat part: an image as a data URL, WAV or MP3 as `input_audio`, a PDF as a `file`. */
function inlinePart(data: JsonObject, at: string): JsonObject {
  const mimeType = (stringField(data, "mimeType") ?? "").toLowerCase();
  const base64 = stringField(data, "data") ?? "";
  if (mimeType.startsWith("image/")) return { type: "image_url", image_url: { url: `data:${mimeType};base64,${base64}` } };
  const audio = AUDIO_FORMATS[mimeType];
  if (audio) return { type: "input_audio", input_audio: { data: base64, format: audio } };
  if (mimeType === "application/pdf") return { type: "file", file: { filename: "document.pdf", file_data: `data:application/pdf;base64,${base64}` } };
  throw new Refusal(`Inline data of type ${mimeType || "(none)"} cannot be sent to a chat-completions target: images, WAV or MP3 audio and PDF can.`, `${at}.mimeType`);
}

/** A file by URI: an image as an image URL; anything else has no chat form. */
function filePart(data: JsonObject, at: string): JsonObject {
  const mimeType = (stringField(data, "mimeType") ?? "").toLowerCase();
  if (mimeType.startsWith("image/")) return { type: "image_url", image_url: { url: stringField(data, "fileUri") ?? "" } };
  throw new Refusal("fileData other than an image (with its image/* mimeType) cannot be sent to a chat-completions target: send the data inline.", at);
}

function unsupportedPart(at: string): Refusal {
  return new Refusal("A part sent to a chat-completions target must hold text, inlineData, fileData, functionCall or functionResponse.", at);
}

/** Function declarations as chat function tools; Gemini's server-side tools have no chat form. */
function chatTools(tools: unknown[]): JsonObject[] {
  const functions: JsonObject[] = [];
  tools.forEach((tool, index) => {
    for (const key of Object.keys(isObject(tool) ? tool : {})) {
      if (key !== "functionDeclarations") throw new Refusal(`Gemini's server-side tools (${key}) cannot be sent to a chat-completions target through the gateway.`, `tools.${index}.${key}`);
    }
    for (const declaration of arrayField(tool, "functionDeclarations")) {
      const fn: JsonObject = { name: stringField(declaration, "name") ?? "", parameters: parametersOf(declaration) };
      const description = stringField(declaration, "description");
      if (description !== null) fn.description = description;
      functions.push({ type: "function", function: fn });
    }
  });
  return functions;
}

/** A declaration's parameters as JSON Schema: `parametersJsonSchema` as it is, else `parameters` converted, else no parameters. */
function parametersOf(declaration: unknown): JsonObject {
  const jsonSchema = objectField(declaration, "parametersJsonSchema");
  if (jsonSchema) return jsonSchema;
  const parameters = objectField(declaration, "parameters");
  return parameters ? jsonSchemaFromGemini(parameters) : { type: "object", properties: {} };
}

/**
 * `functionCallingConfig` as chat's `tool_choice`: AUTO → auto, NONE → none, ANY → required, or
 * with `allowedFunctionNames` the one function named, or only the functions named (the tools are
 * narrowed to them, so any provider can honour it). VALIDATED has no chat counterpart.
 */
function toolChoice(config: JsonObject | null, tools: JsonObject[]): { tools: JsonObject[]; tool_choice?: unknown } {
  const mode = stringField(config, "mode");
  if (tools.length === 0 || mode === null || mode === "MODE_UNSPECIFIED") return { tools };
  if (mode === "AUTO") return { tools, tool_choice: "auto" };
  if (mode === "NONE") return { tools, tool_choice: "none" };
  if (mode === "VALIDATED") throw new Refusal("Function calling mode VALIDATED has no chat-completions counterpart: use AUTO or ANY.", "toolConfig.functionCallingConfig.mode");
  const allowed = arrayField(config, "allowedFunctionNames").filter((name): name is string => typeof name === "string");
  if (allowed.length === 0) return { tools, tool_choice: "required" };
  const named = (tool: JsonObject) => allowed.includes(stringField(objectField(tool, "function"), "name") ?? "");
  const unknown = allowed.find((name) => !tools.some((tool) => stringField(objectField(tool, "function"), "name") === name));
  if (unknown !== undefined) throw new Refusal(`allowedFunctionNames names ${unknown}, which no functionDeclaration declares.`, "toolConfig.functionCallingConfig.allowedFunctionNames");
  if (allowed.length === 1) return { tools, tool_choice: { type: "function", function: { name: allowed[0] } } };
  return { tools: tools.filter(named), tool_choice: "required" };
}

/** The reasoning levels chat completions take, by Gemini's `thinkingLevel`. */
const THINKING_LEVELS: ReadonlySet<string> = new Set(["minimal", "low", "medium", "high"]);

/** `generationConfig` as chat's sampling, length, format and reasoning fields. */
function generationFields(config: JsonObject | null): JsonObject {
  const fields: JsonObject = {};
  if (!config) return fields;
  const direct: [string, string][] = [
    ["temperature", "temperature"],
    ["topP", "top_p"],
    ["maxOutputTokens", "max_completion_tokens"],
    ["seed", "seed"],
    ["presencePenalty", "presence_penalty"],
    ["frequencyPenalty", "frequency_penalty"],
    ["candidateCount", "n"],
  ];
  for (const [from, to] of direct) {
    const value = numberField(config, from);
    if (value !== null) fields[to] = value;
  }
  const stops = arrayField(config, "stopSequences");
  if (stops.length > 0) fields.stop = stops;
  const format = responseFormat(config);
  if (format) fields.response_format = format;
  const modalities = arrayField(config, "responseModalities").filter((modality) => typeof modality !== "string" || modality.toUpperCase() !== "TEXT");
  if (modalities.length > 0) throw new Refusal("A chat-completions target answers in text only: responseModalities may name TEXT alone.", "generationConfig.responseModalities");
  if (config.responseLogprobs === true) throw new Refusal("Log probabilities cannot be translated back into Gemini's logprobsResult through the gateway.", "generationConfig.responseLogprobs");
  for (const name of ["speechConfig", "imageConfig"]) {
    if (config[name] !== undefined) throw new Refusal(`${name} has no chat-completions counterpart.`, `generationConfig.${name}`);
  }
  const effort = reasoningEffort(objectField(config, "thinkingConfig"));
  if (effort !== null) fields.reasoning_effort = effort;
  return fields;
}

/** `responseMimeType` with its schema as chat's `response_format`; null for plain text. */
function responseFormat(config: JsonObject): JsonObject | null {
  const mimeType = stringField(config, "responseMimeType");
  const jsonSchema = objectField(config, "responseJsonSchema");
  const schema = jsonSchema ?? (objectField(config, "responseSchema") ? jsonSchemaFromGemini(config.responseSchema) : null);
  if (mimeType !== null && mimeType !== "application/json" && mimeType !== "text/plain") {
    throw new Refusal(`responseMimeType ${mimeType} has no chat-completions counterpart: application/json and text/plain do.`, "generationConfig.responseMimeType");
  }
  if (schema) return { type: "json_schema", json_schema: { name: "response", schema } };
  return mimeType === "application/json" ? { type: "json_object" } : null;
}

/**
 * `thinkingConfig` as `reasoning_effort`: its level as it is, else its budget by the budgets the
 * gateway's Gemini provider gives each level (low 1024, medium 8192, high 24576). A budget of 0
 * (off) or -1 (the model decides) sends none: the model's default.
 */
function reasoningEffort(thinking: JsonObject | null): string | null {
  const level = stringField(thinking, "thinkingLevel")?.toLowerCase();
  if (level !== undefined && THINKING_LEVELS.has(level)) return level;
  const budget = numberField(thinking, "thinkingBudget");
  if (budget === null || budget <= 0) return null;
  if (budget <= 1024) return "low";
  return budget <= 8192 ? "medium" : "high";
}
