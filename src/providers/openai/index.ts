/**
 * Providers that speak the OpenAI format: every operation passes as it is, authorised with a
 * bearer key; chat completions only make sure a stream reports its usage and keep fields the
 * provider refuses from reaching it.
 */
import { openaiSseProtocol } from "../../streams/stream-protocol.ts";
import type { ChatFieldRules, CredentialField, OperationTransforms, Provider, StreamUsage } from "../provider.ts";
import { citingStream, withCitedSources } from "./cited-sources.ts";
import { authorizeBearer } from "./auth.ts";
import { openaiChatTransforms } from "./chat.ts";
import { upstreamErrorFromBody } from "./upstream-error.ts";

export interface OpenAiFormatEntry {
  id: string;
  name: string;
  /** The API's base URL, as OpenAI clients take it; null when only a custom host or `baseUrlTemplate` gives it. */
  baseUrl: string | null;
  /**
   * A base URL holding one's own account (Cloudflare's account id): `{field}` placeholders, each a
   * credential field of `credentialFields`, filled from the request's headers or a virtual key.
   */
  baseUrlTemplate?: string;
  credentialFields?: readonly CredentialField[];
  streamUsage: StreamUsage;
  /**
   * The provider searches on every request and cites by numbered markers over its answer's
   * `search_results` (Perplexity): its chat answers, plain and streamed, get `url_citation`
   * annotations over the markers (`cited-sources.ts`).
   */
  citesSources?: true;
  /** Chat completion fields the provider's docs say it refuses or ignores (`chat.ts`). */
  chatFields?: ChatFieldRules;
  docs: string;
}

export function openaiFormatProvider(entry: OpenAiFormatEntry): Provider {
  const template = entry.baseUrlTemplate;
  const exampleBase = entry.baseUrl ?? template?.replace(/\{[a-z_]+\}/g, "x");
  return {
    id: entry.id,
    name: entry.name,
    family: "openai",
    baseUrl: entry.baseUrl,
    // A server named only by a custom host (`openai-compatible`) is reached under its base path too.
    customHostNeedsPath: exampleBase === undefined || new URL(exampleBase).pathname !== "/",
    docs: entry.docs,
    openaiFormat: true,
    operations: { createChatCompletion: citing(openaiChatTransforms(entry.streamUsage, entry.chatFields, entry.name), entry.citesSources === true) },
    chatRules: { streamUsage: entry.streamUsage, fields: entry.chatFields ?? {} },
    streamProtocol: openaiSseProtocol,
    ...(entry.credentialFields ? { credentialFields: entry.credentialFields } : {}),
    ...(template ? { baseUrlTemplate: template, baseUrlFrom: (fields) => filledTemplate(template, fields), baseUrlHosts: templateHosts(template) } : {}),
    authorize: authorizeBearer,
    error: (status, text, headers) => upstreamErrorFromBody(status, text, entry.name, headers),
  };
}

/** Chat transforms that give a citing provider's answers their annotations; the same ones otherwise. */
function citing(transforms: OperationTransforms, cites: boolean): OperationTransforms {
  if (!cites) return transforms;
  const stream = transforms.stream!;
  return { ...transforms, response: (answer) => withCitedSources(answer), stream: (clientBody, context) => citingStream(stream(clientBody, context)) };
}

/** The template with every placeholder filled, or null when a field is missing. Values were checked against their patterns. */
export function filledTemplate(template: string, fields: Readonly<Record<string, string>>): string | null {
  let missing = false;
  const filled = template.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const value = fields[name];
    if (!value) missing = true;
    return encodeURIComponent(value ?? "");
  });
  return missing ? null : filled;
}

/** The hosts a template can give: its host name, each placeholder one DNS label. */
function templateHosts(template: string): RegExp {
  const host = /^https:\/\/([^/]+)/.exec(template)?.[1] ?? "";
  const pattern = host
    .split(/(\{[a-z_]+\})/)
    .map((part) => (part.startsWith("{") ? "[a-z0-9-]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${pattern}$`);
}
