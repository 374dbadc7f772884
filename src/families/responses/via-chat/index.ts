/**
 * The Responses operation for a provider that has chat completions but no Responses API of its
 * own: its chat transforms, wrapped in a translation each way (`request.ts`, `response.ts`,
 * `stream.ts`). The catalogue adds it to such providers; the core only sees transforms.
 */
import { isUnusableAnswer, type JsonObject, type OperationTransforms, type Provider } from "../../../providers/provider.ts";
import { chatRequestOf } from "./request.ts";
import { responseOf } from "./response.ts";
import { responsesStreamOf } from "./stream.ts";
import { WEB_SEARCH_TOOLS } from "../../../providers/web-search.ts";

const asksForWebSearch = (body: JsonObject): boolean =>
  Array.isArray(body.tools) && body.tools.some((tool) => typeof tool === "object" && tool !== null && WEB_SEARCH_TOOLS.has((tool as JsonObject).type));

const PASS_EVENTS = { event: (event: { event: string | null; data: string }) => [event.event === null ? { data: event.data } : { event: event.event, data: event.data }] };

export function responsesViaChat(chat: OperationTransforms, provider: Pick<Provider, "name" | "webSearch"> = { name: "This provider" }): OperationTransforms {
  return {
    request(body, context) {
      const translated = chatRequestOf(body, provider);
      if ("error" in translated) return translated;
      return chat.request ? chat.request(translated.body, context) : translated;
    },
    response(answer, context) {
      const completion = chat.response ? chat.response(answer, context) : answer;
      if (isUnusableAnswer(completion)) return completion;
      return responseOf(completion, context.clientBody, provider.webSearch?.queries(answer) ?? []);
    },
    stream(clientBody, context) {
      const chatStream = chat.stream ? chat.stream(clientBody, context) : PASS_EVENTS;
      const searches = asksForWebSearch(clientBody) ? provider.webSearch?.streamSearches() : undefined;
      return responsesStreamOf(chatStream, clientBody, searches);
    },
  };
}

/** The provider with `createResponse` through its chat transforms, when it has chat and no Responses of its own. */
export function withResponsesViaChat(provider: Provider): Provider {
  const chat = provider.operations.createChatCompletion;
  if (provider.openaiFormat || !chat || provider.operations.createResponse) return provider;
  return { ...provider, operations: { ...provider.operations, createResponse: responsesViaChat(chat, provider) } };
}
