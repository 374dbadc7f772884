import type { JsonObject } from "../providers/provider.ts";

/**
 * The operations whose answers the cache may keep, in one place, each with the rule that says
 * whether one request's answer may be served to another. Only JSON-answering inference whose
 * answer depends on the request alone is listed: never uploads (their bodies are not read),
 * realtime sessions, image or audio generation (their answers hold expiring URLs or are binary),
 * or anything with a side effect upstream. A rule returns why a body is not cacheable, or null.
 */
const CACHEABLE: Readonly<Record<string, (body: JsonObject) => string | null>> = {
  // `store: true` keeps the completion upstream (evals, distillation): a hit would skip that.
  createChatCompletion: (body) => (body.store === true ? "store" : null),
  createCompletion: () => null,
  // Anthropic Messages in: the body here is the chat completion it was translated into (never
  // `store`), and the cached answer the Anthropic one the client got.
  createMessage: () => null,
  createEmbedding: () => null,
  createResponse: responsesRule,
};

/**
 * The Responses API stores every response unless told not to (`store` defaults to true), runs
 * `background` jobs and appends to a `conversation`: each is a side effect or state a hit would
 * skip or misread. A stored `prompt` without a `version` follows its latest version, which the
 * body does not show.
 */
function responsesRule(body: JsonObject): string | null {
  if (body.store !== false) return "store";
  if (body.background === true) return "background";
  if (body.conversation !== undefined && body.conversation !== null) return "conversation";
  const prompt = body.prompt;
  if (prompt && typeof prompt === "object" && !Array.isArray(prompt) && (prompt as JsonObject).version === undefined) return "prompt";
  return null;
}

/** Whether the operation's answer to this body may be cached. */
export function isCacheable(operationId: string, body: JsonObject | null): boolean {
  const rule = CACHEABLE[operationId];
  return rule !== undefined && body !== null && rule(body) === null;
}
