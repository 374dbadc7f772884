/**
 * Cohere through its own v2 APIs: chat completions translated to and from `POST /v2/chat`
 * (plain and streamed, with tools), embeddings through `POST /v2/embed`, and reranking through
 * `POST /v2/rerank`, documents as strings, billed in search units (one query with up to 100
 * documents), which the answer reports in `meta.billed_units.search_units`. v2 returns no
 * documents: the gateway attaches them from the request when the client asks. Streams are
 * server-sent events ending with `message-end`, which carries the usage.
 * https://docs.cohere.com/reference/chat
 * https://docs.cohere.com/reference/embed
 * https://docs.cohere.com/reference/rerank
 */
import { countOf, documentTexts, otherFields, rankedDocuments, rerankAnswer, rerankProvider } from "../rerank.ts";
import { createSseDecoder, type StreamEvent, type StreamProtocol } from "../../streams/stream-protocol.ts";
import type { JsonObject, Provider } from "../provider.ts";
import { cohereChatRequest } from "./chat-request.ts";
import { cohereChatCompletion } from "./chat-response.ts";
import { cohereChatStream, isCohereStreamError } from "./chat-stream.ts";
import { cohereEmbeddings } from "./embeddings.ts";

const field = (value: unknown, key: string): unknown => (value && typeof value === "object" ? (value as JsonObject)[key] : undefined);

/** An event of `type`, by its SSE name or, without one, its data's `type` (a quote inside a JSON string is escaped, so text cannot match). */
const isMessageEnd = (event: StreamEvent): boolean => (event.event === null ? /"type"\s*:\s*"message-end"/.test(event.data) : event.event === "message-end");

/** Cohere's chat streams: `message-end` is the last event and carries the usage. */
export const cohereSseProtocol: StreamProtocol = {
  contentType: "text/event-stream",
  createDecoder: createSseDecoder,
  isEnd: () => false,
  isLast: isMessageEnd,
  endsAtEof: false,
  isError: isCohereStreamError,
};

const cohereRerank = rerankProvider({
  id: "cohere",
  name: "Cohere",
  baseUrl: "https://api.cohere.com",
  docs: "https://docs.cohere.com/reference/rerank",
  rerank: {
    request(body, { model }) {
      const documents = documentTexts(body);
      if (!Array.isArray(documents)) return { error: documents };
      const sent: JsonObject = { ...otherFields(body), model, query: body.query, documents };
      if (body.top_n !== undefined) sent.top_n = body.top_n;
      return { body: sent, path: "/v2/rerank" };
    },
    response(answer, context) {
      const searchUnits = countOf(field(field(answer.meta, "billed_units"), "search_units"));
      return rerankAnswer(rankedDocuments(answer.results), { id: answer.id, usage: searchUnits === undefined ? {} : { search_units: searchUnits } }, context);
    },
  },
});

export const cohereProvider: Provider = {
  ...cohereRerank,
  docs: "https://docs.cohere.com/reference/about",
  operations: {
    ...cohereRerank.operations,
    createChatCompletion: { request: cohereChatRequest, response: (answer, { model }) => cohereChatCompletion(answer, model), stream: cohereChatStream },
    createEmbedding: cohereEmbeddings,
  },
  streamProtocol: cohereSseProtocol,
};
