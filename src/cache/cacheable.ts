import type { CacheRule, OperationDescriptor } from "../operation/descriptor.ts";
import type { JsonObject } from "../providers/provider.ts";

/**
 * The cache rules operations name in their descriptors (`OperationDescriptor.cache`). Only
 * JSON-answering inference whose answer depends on the request alone has one: never uploads
 * (their bodies are not read), realtime sessions, image or audio generation (their answers hold
 * expiring URLs or are binary), or anything with a side effect upstream.
 */

/** Every body's answer may be cached (completions, embeddings). */
export const alwaysCacheable: CacheRule = () => null;

/** Chat completions: `store: true` keeps the completion upstream (evals, distillation), which a hit would skip. */
export const chatCacheRule: CacheRule = (body) => (body.store === true ? "store" : null);

/**
 * The Responses API stores every response unless told not to (`store` defaults to true), runs
 * `background` jobs and appends to a `conversation`: each is a side effect or state a hit would
 * skip or misread. A stored `prompt` without a `version` follows its latest version, which the
 * body does not show.
 */
export const responsesCacheRule: CacheRule = (body) => {
  if (body.store !== false) return "store";
  if (body.background === true) return "background";
  if (body.conversation !== undefined && body.conversation !== null) return "conversation";
  const prompt = body.prompt;
  if (prompt && typeof prompt === "object" && !Array.isArray(prompt) && (prompt as JsonObject).version === undefined) return "prompt";
  return null;
};

/** Whether the operation's answer to this body may be cached: a JSON body its rule accepts. */
export function isCacheable(operation: Pick<OperationDescriptor, "cache">, body: JsonObject | null): boolean {
  return operation.cache !== undefined && body !== null && operation.cache(body) === null;
}
