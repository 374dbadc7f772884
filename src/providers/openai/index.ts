/**
 * Providers that speak the OpenAI format: every operation passes as it is, authorised with a
 * bearer key; chat completions only make sure a stream reports its usage.
 */
import { openaiSseProtocol } from "../../streams/stream-protocol.ts";
import type { Provider } from "../provider.ts";
import { authorizeBearer } from "./auth.ts";
import { openaiChatTransforms, type StreamUsage } from "./chat.ts";
import { upstreamErrorFromBody } from "./upstream-error.ts";

export interface OpenAiFormatEntry {
  id: string;
  name: string;
  baseUrl: string | null;
  streamUsage: StreamUsage;
  docs: string;
}

export function openaiFormatProvider(entry: OpenAiFormatEntry): Provider {
  return {
    id: entry.id,
    name: entry.name,
    baseUrl: entry.baseUrl,
    // A server named only by a custom host (`openai-compatible`) is reached under its base path too.
    customHostNeedsPath: entry.baseUrl === null || new URL(entry.baseUrl).pathname !== "/",
    docs: entry.docs,
    openaiFormat: true,
    operations: { createChatCompletion: openaiChatTransforms(entry.streamUsage) },
    streamProtocol: openaiSseProtocol,
    authorize: authorizeBearer,
    error: (status, text, headers) => upstreamErrorFromBody(status, text, entry.name, headers),
  };
}
