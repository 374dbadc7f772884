/**
 * OpenAI chat completions request transform (pure).
 * https://platform.openai.com/docs/api-reference/chat/create
 */
import type { ProviderDefinition } from "../catalogue.ts";

export interface UpstreamCredentials {
  apiKey: string | null;
  organization: string | null;
  project: string | null;
}

export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface ChatRequestInput {
  provider: ProviderDefinition;
  baseUrl: string;
  credentials: UpstreamCredentials;
  /** The client's body; never mutated. */
  body: Record<string, unknown>;
  /** Model id to send upstream (the `@provider/` prefix already removed). */
  model: string;
  /** `body` exactly as the client sent it, as JSON text; sent as is when nothing needs changing. */
  rawBody?: string;
}

/** Whether the client itself asked for the final usage chunk of a stream. */
export function clientWantsStreamUsage(body: Record<string, unknown>): boolean {
  const options = body.stream_options;
  return !!options && typeof options === "object" && (options as Record<string, unknown>).include_usage === true;
}

/**
 * Builds the upstream request. For streams it asks for the usage chunk, so that cost is
 * always known; every other field passes through untouched.
 */
export function buildChatRequest(input: ChatRequestInput): UpstreamRequest {
  const { body, credentials } = input;
  const askForUsage = body.stream === true && input.provider.streamUsage === "stream_options" && !clientWantsStreamUsage(body);
  let upstreamBody = input.rawBody;
  if (upstreamBody === undefined || askForUsage || body.model !== input.model) {
    const changed: Record<string, unknown> = { ...body, model: input.model };
    if (askForUsage) {
      const existing = body.stream_options && typeof body.stream_options === "object" ? body.stream_options : {};
      changed.stream_options = { ...existing, include_usage: true };
    }
    upstreamBody = JSON.stringify(changed);
  }
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: body.stream === true ? "text/event-stream" : "application/json",
  };
  if (credentials.apiKey) headers.authorization = `Bearer ${credentials.apiKey}`;
  if (credentials.organization) headers["openai-organization"] = credentials.organization;
  if (credentials.project) headers["openai-project"] = credentials.project;
  return { url: `${input.baseUrl.replace(/\/+$/, "")}/chat/completions`, headers, body: upstreamBody };
}
