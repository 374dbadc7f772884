/**
 * Google Gemini (the Gemini Developer API): chat completions translated to and from
 * `generateContent`, embeddings through `embedContent`/`batchEmbedContents` (`embeddings.ts`),
 * images through Imagen's `:predict` (`imagen.ts`),
 * and Gemini-format token counts passed natively, authorised with the key in
 * `x-goog-api-key`. Its streams are server-sent events with no end marker: they end where the
 * bytes end.
 * https://ai.google.dev/api
 */
import { createSseDecoder, type StreamProtocol } from "../../streams/stream-protocol.ts";
import type { Provider } from "../provider.ts";
import { authorizeGoogleApiKey } from "./auth.ts";
import { toGeminiChatRequest } from "./chat-request.ts";
import { toOpenAiChatCompletion } from "./chat-response.ts";
import { geminiChatStream } from "./chat-stream.ts";
import { toGeminiCountTokensRequest } from "./count-tokens.ts";
import { geminiUpstreamError } from "./upstream-error.ts";
import { geminiSearchQueries, geminiStreamSearches } from "./grounding.ts";
import { geminiEmbeddings } from "./embeddings.ts";
import { imagenImages } from "./imagen.ts";

export const geminiSseProtocol: StreamProtocol = {
  contentType: "text/event-stream",
  createDecoder: createSseDecoder,
  isEnd: () => false,
  endsAtEof: true,
  isError: (event) => event.data.startsWith('{"error"') || event.data.startsWith('[{"error"'),
};

export const geminiProvider: Provider = {
  id: "gemini",
  name: "Google Gemini",
  baseUrl: "https://generativelanguage.googleapis.com/v1beta",
  docs: "https://ai.google.dev/api",
  openaiFormat: false,
  operations: {
    createChatCompletion: { request: toGeminiChatRequest, response: (answer, { clientBody }) => toOpenAiChatCompletion(answer, clientBody), stream: geminiChatStream },
    countContentTokens: { request: toGeminiCountTokensRequest },
    createEmbedding: geminiEmbeddings,
    createImage: imagenImages("Google Gemini (Imagen)"),
  },
  streamProtocol: geminiSseProtocol,
  webSearch: { queries: geminiSearchQueries, streamSearches: geminiStreamSearches },
  authorize: authorizeGoogleApiKey,
  error: geminiUpstreamError,
};
