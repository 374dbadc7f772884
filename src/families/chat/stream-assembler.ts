/**
 * Assembles the chunks of a streamed chat completion into the non-streamed shape.
 * https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 * https://platform.openai.com/docs/api-reference/chat/object
 */

import { count, normaliseUsage, type Usage } from "../../operation/answer-reader.ts";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export interface AssembledChatStream {
  /** A `chat.completion` object as the non-streamed endpoint would have returned it. */
  completion: Json;
  usage: Usage | null;
}

export interface ChatStreamAssembler {
  /** Adds one parsed `chat.completion.chunk`. Anything of another shape is ignored. Never throws. */
  add(chunk: unknown): void;
  /** The completion assembled so far; may be called more than once. Never throws. */
  result(): AssembledChatStream;
}

interface ToolCallState {
  index: number;
  id: string | null;
  type: string | null;
  name: string;
  arguments: string;
}

interface ChoiceState {
  index: number;
  role: string | null;
  content: string | null;
  refusal: string | null;
  reasoningContent: string | null;
  toolCalls: Map<number, ToolCallState>;
  functionCall: { name: string; arguments: string } | null;
  annotations: unknown[] | null;
  finishReason: string | null;
  logprobsContent: unknown[] | null;
  logprobsRefusal: unknown[] | null;
  sawLogprobs: boolean;
}

function nonEmptyString(value: unknown): string | null {
  return typeof value === "string" && value.length > 0 ? value : null;
}

function append(current: string | null, piece: unknown): string | null {
  return typeof piece === "string" ? (current ?? "") + piece : current;
}

function newChoice(index: number): ChoiceState {
  return {
    index,
    role: null,
    content: null,
    refusal: null,
    reasoningContent: null,
    toolCalls: new Map(),
    functionCall: null,
    annotations: null,
    finishReason: null,
    logprobsContent: null,
    logprobsRefusal: null,
    sawLogprobs: false,
  };
}

/**
 * Picks the slot of a tool call delta. OpenAI always sends `index`; for providers that do
 * not, a delta with a new `id` opens the next slot and one without continues the last.
 */
function toolCallSlot(choice: ChoiceState, delta: Json): number {
  const index = count(delta.index);
  if (index !== null) return index;
  const id = nonEmptyString(delta.id);
  let last = -1;
  for (const call of choice.toolCalls.values()) {
    if (id !== null && call.id === id) return call.index;
    last = Math.max(last, call.index);
  }
  return id !== null || last === -1 ? last + 1 : last;
}

function addToolCalls(choice: ChoiceState, deltas: unknown[]): void {
  for (const delta of deltas) {
    if (!isObject(delta)) continue;
    const slot = toolCallSlot(choice, delta);
    let call = choice.toolCalls.get(slot);
    if (!call) {
      call = { index: slot, id: null, type: null, name: "", arguments: "" };
      choice.toolCalls.set(slot, call);
    }
    call.id = nonEmptyString(delta.id) ?? call.id;
    call.type = nonEmptyString(delta.type) ?? call.type;
    const fn = isObject(delta.function) ? delta.function : null;
    if (fn) {
      call.name = nonEmptyString(fn.name) ?? call.name;
      if (typeof fn.arguments === "string") call.arguments += fn.arguments;
    }
  }
}

/** Appends in place (a long stream must not copy its arrays per chunk). */
function extend(target: unknown[] | null, items: unknown[]): unknown[] {
  const out = target ?? [];
  for (const item of items) out.push(item);
  return out;
}

function addLogprobs(choice: ChoiceState, logprobs: unknown): void {
  if (!isObject(logprobs)) return;
  choice.sawLogprobs = true;
  if (Array.isArray(logprobs.content)) choice.logprobsContent = extend(choice.logprobsContent, logprobs.content);
  if (Array.isArray(logprobs.refusal)) choice.logprobsRefusal = extend(choice.logprobsRefusal, logprobs.refusal);
}

function addChoice(choice: ChoiceState, raw: Json): void {
  const delta = isObject(raw.delta) ? raw.delta : {};
  choice.role = nonEmptyString(delta.role) ?? choice.role;
  choice.content = append(choice.content, delta.content);
  choice.refusal = append(choice.refusal, delta.refusal);
  choice.reasoningContent = append(choice.reasoningContent, delta.reasoning_content);
  if (Array.isArray(delta.tool_calls)) addToolCalls(choice, delta.tool_calls);
  if (isObject(delta.function_call)) {
    const call = (choice.functionCall ??= { name: "", arguments: "" });
    call.name = nonEmptyString(delta.function_call.name) ?? call.name;
    if (typeof delta.function_call.arguments === "string") call.arguments += delta.function_call.arguments;
  }
  if (Array.isArray(delta.annotations)) choice.annotations = extend(choice.annotations, delta.annotations);
  choice.finishReason = nonEmptyString(raw.finish_reason) ?? choice.finishReason;
  addLogprobs(choice, raw.logprobs);
}

function buildChoice(choice: ChoiceState): Json {
  const message: Json = { role: choice.role ?? "assistant", content: choice.content, refusal: choice.refusal };
  if (choice.reasoningContent !== null) message.reasoning_content = choice.reasoningContent;
  if (choice.toolCalls.size > 0) {
    message.tool_calls = [...choice.toolCalls.values()]
      .sort((a, b) => a.index - b.index)
      .map((call) => ({ id: call.id ?? "", type: call.type ?? "function", function: { name: call.name, arguments: call.arguments } }));
  }
  if (choice.functionCall) message.function_call = { ...choice.functionCall };
  if (choice.annotations) message.annotations = [...choice.annotations];
  const logprobs = choice.sawLogprobs
    ? { content: choice.logprobsContent && [...choice.logprobsContent], refusal: choice.logprobsRefusal && [...choice.logprobsRefusal] }
    : null;
  return { index: choice.index, message, logprobs, finish_reason: choice.finishReason };
}

/**
 * Creates an assembler for one streamed chat completion. It keeps the first `id`, `created`
 * and `model`, the last `system_fingerprint` and `service_tier`; per choice `index` it
 * concatenates `content`, `refusal`, DeepSeek's `reasoning_content`, the legacy
 * `function_call` arguments and `logprobs.content`/`.refusal`; it merges `tool_calls` by
 * their `index` (the last non-empty `id`, `type` and `function.name` win, as in OpenAI's SDK;
 * `arguments` are concatenated). Usage is the last non-null `usage` (or Groq's `x_groq.usage`).
 */
export function createChatStreamAssembler(): ChatStreamAssembler {
  let id: string | null = null;
  let created: number | null = null;
  let model: string | null = null;
  let systemFingerprint: string | null = null;
  let serviceTier: string | null = null;
  let rawUsage: unknown = null;
  const choices = new Map<number, ChoiceState>();

  return {
    add(chunk: unknown): void {
      if (!isObject(chunk)) return;
      id ??= nonEmptyString(chunk.id);
      if (created === null && typeof chunk.created === "number" && Number.isFinite(chunk.created)) created = chunk.created;
      model ??= nonEmptyString(chunk.model);
      systemFingerprint = nonEmptyString(chunk.system_fingerprint) ?? systemFingerprint;
      serviceTier = nonEmptyString(chunk.service_tier) ?? serviceTier;
      if (isObject(chunk.usage)) rawUsage = chunk.usage;
      else if (isObject(chunk.x_groq) && isObject(chunk.x_groq.usage)) rawUsage = chunk.x_groq.usage;
      if (!Array.isArray(chunk.choices)) return;
      for (const raw of chunk.choices) {
        if (!isObject(raw)) continue;
        const index = count(raw.index) ?? 0;
        let choice = choices.get(index);
        if (!choice) {
          choice = newChoice(index);
          choices.set(index, choice);
        }
        addChoice(choice, raw);
      }
    },

    result(): AssembledChatStream {
      const completion: Json = { id: id ?? "", object: "chat.completion", created: created ?? 0, model: model ?? "" };
      if (systemFingerprint !== null) completion.system_fingerprint = systemFingerprint;
      if (serviceTier !== null) completion.service_tier = serviceTier;
      completion.choices = [...choices.values()].sort((a, b) => a.index - b.index).map(buildChoice);
      const usage = normaliseUsage(rawUsage);
      if (usage !== null) completion.usage = rawUsage;
      return { completion, usage };
    },
  };
}
