/**
 * The conformance matrix: every inbound format and feature, sent through the gateway to every
 * provider family `GET /v1/providers` lists with chat completions (aimock speaking each provider's
 * own wire format; for the embedding and image endpoints aimock lacks, or answers without the usage
 * the real API reports, a stand-in following the provider's documented shapes; for web search, a
 * stand-in answering in each provider's documented search format; for MCP, a local MCP server the
 * gateway runs the tools of), checked for the answer's shape, the stream's events and end, and the
 * usage and cost in the log. Each cell is a pass, a pass whose log has no cost for a reason the
 * log states (embeddings and images: a provider that reports no usage, a model the price table
 * lacks; any cell of a family the table has no prices for), or the 400 the gateway answers with;
 * anything else fails the test. The table is
 * `docs/conformance.md`: the test fails when the page differs from what the run found
 * (`CONFORMANCE_WRITE=1` rewrites it).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { DEFAULT_WORKSPACE_ID } from "../src/control-plane/auth-context.ts";
import type { LogRecord } from "../src/records/log-record.ts";
import { call, startGateway, storedLog, type RunningGateway } from "./support/harness.ts";
import { startGoogleTokenServer, type GoogleTokenServer } from "./support/google-token-server.ts";
import { PIXEL_PNG_BASE64, startBeyondChatUpstream } from "./support/beyond-chat-upstream.ts";
import { openaiContractProblems } from "./support/contract.ts";
import { startMcpServer, type TestMcpServer } from "./support/mcp-server.ts";
import { startRecordingUpstream, type RecordingUpstream } from "./support/recording-upstream.ts";
import { webSearchAnswer } from "./support/web-search-answers.ts";

const PAGE = join(import.meta.dirname, "..", "docs", "conformance.md");
const UPSTREAM_KEY = "sk-conformance-upstream";
const PIXEL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const WEATHER_TOOL = { name: "get_weather", description: "The weather in a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };

/** Where a family's embeddings or images are asked for: the model, and whether aimock or the stand-in answers. */
interface Endpoint {
  model: string;
  via: "aimock" | "stand-in";
}

/** How the matrix reaches a provider family: its gateway headers, the model it is asked for, its usage in its own names. */
interface Reach {
  model: string;
  usage: Record<string, number>;
  headers(upstreamUrl: string): Record<string, string>;
  embeddings: Endpoint;
  images: Endpoint;
  /** The custom host that sends the family's requests to the stand-in at `base` (no path). */
  standInHost(base: string): string;
  /** The upstream credential the client sends (a service account's key for Vertex AI). */
  apiKey?(): string;
  /** The price table has no prices for the family's models (an Azure AI Foundry deployment's are the resource's own): every cell may be a pass with no cost, for the log's reason. */
  unpriced?: true;
}

/** A column: a family as `GET /v1/providers` names it, reached through its first listed provider. */
interface Family extends Reach {
  id: string;
  label: string;
  /** The gateway builds its Responses answers (an OpenAI-format family's are the upstream's own, passed on). */
  translated: boolean;
}

/**
 * How to reach each family the gateway lists. An OpenAI-format family not here is reached as
 * OpenAI is; a translated one not here fails the run, naming it, until it is added.
 */
const REACH: Readonly<Record<string, Reach>> = {
  openai: {
    model: "gpt-4o-mini",
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
    headers: (url) => ({ "x-gateway-provider": "openai", "x-gateway-custom-host": `${url}/v1` }),
    embeddings: { model: "text-embedding-3-small", via: "stand-in" },
    images: { model: "dall-e-3", via: "aimock" },
    standInHost: (base) => `${base}/v1`,
  },
  "azure-openai": {
    model: "gpt-4o-mini",
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
    headers: (url) => ({ "x-gateway-provider": "azure-openai", "x-gateway-custom-host": url }),
    embeddings: { model: "text-embedding-3-small", via: "stand-in" },
    images: { model: "dall-e-3", via: "aimock" },
    standInHost: (base) => base,
  },
  anthropic: {
    model: "claude-sonnet-4-5",
    usage: { input_tokens: 12, output_tokens: 5 },
    headers: (url) => ({ "x-gateway-provider": "anthropic", "x-gateway-custom-host": `${url}/v1` }),
    embeddings: { model: "claude-sonnet-4-5", via: "aimock" },
    images: { model: "claude-sonnet-4-5", via: "aimock" },
    standInHost: (base) => `${base}/v1`,
  },
  gemini: {
    model: "gemini-2.5-flash",
    usage: { promptTokenCount: 12, candidatesTokenCount: 5 },
    headers: (url) => ({ "x-gateway-provider": "gemini", "x-gateway-custom-host": `${url}/v1beta` }),
    embeddings: { model: "gemini-embedding-001", via: "aimock" },
    images: { model: "imagen-4.0-fast-generate-001", via: "aimock" },
    standInHost: (base) => `${base}/v1beta`,
  },
  vertex: {
    model: "gemini-2.5-flash",
    usage: { promptTokenCount: 12, candidatesTokenCount: 5 },
    headers: (url) => ({ "x-gateway-provider": "vertex", "x-gateway-custom-host": `${url}/v1`, "x-gateway-vertex-project": "conformance-project", "x-gateway-vertex-location": "us-central1" }),
    apiKey: () => tokens.account("gateway@conformance-project.iam.gserviceaccount.com").keyJson,
    embeddings: { model: "gemini-embedding-001", via: "stand-in" },
    images: { model: "imagen-4.0-generate-001", via: "stand-in" },
    standInHost: (base) => `${base}/v1`,
  },
  bedrock: {
    model: "anthropic.claude-3-5-haiku-20241022-v1:0",
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
    headers: (url) => ({ "x-gateway-provider": "bedrock", "x-gateway-custom-host": url, "x-gateway-aws-access-key-id": "AKIAIOSFODNN7EXAMPLE", "x-gateway-aws-secret-access-key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYCONFORMANCE", "x-gateway-aws-region": "us-east-1" }),
    embeddings: { model: "amazon.titan-embed-text-v2:0", via: "stand-in" },
    images: { model: "amazon.nova-canvas-v1:0", via: "stand-in" },
    standInHost: (base) => base,
  },
  cohere: {
    model: "command-r-08-2024",
    usage: { input_tokens: 12, output_tokens: 5 },
    headers: (url) => ({ "x-gateway-provider": "cohere", "x-gateway-custom-host": url }),
    embeddings: { model: "embed-english-v3.0", via: "stand-in" },
    images: { model: "command-r-08-2024", via: "aimock" },
    standInHost: (base) => base,
  },
  "azure-ai-foundry": {
    model: "gpt-4o-mini",
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
    headers: (url) => ({ "x-gateway-provider": "azure-ai-foundry", "x-gateway-custom-host": `${url}/v1` }),
    embeddings: { model: "text-embedding-3-small", via: "stand-in" },
    images: { model: "dall-e-3", via: "aimock" },
    standInHost: (base) => `${base}/v1`,
    unpriced: true,
  },
};

interface ListedProvider {
  id: string;
  name: string;
  family: string;
  format: "openai" | "translated";
  chat: object | null;
}

/** The families of the providers the gateway lists that take chat completions (every format here reaches them), in the listing's order. */
async function listedFamilies(running: RunningGateway): Promise<Family[]> {
  const listed = await call(running, "GET", "/v1/providers");
  expect(listed.status).toBe(200);
  const families = new Map<string, Family>();
  for (const provider of listed.body.data as ListedProvider[]) {
    if (provider.chat === null || families.has(provider.family)) continue;
    const reach = REACH[provider.family] ?? (provider.format === "openai" ? { ...REACH.openai!, headers: (url: string) => ({ "x-gateway-provider": provider.id, "x-gateway-custom-host": `${url}/v1` }) } : null);
    if (!reach) throw new Error(`The conformance matrix has no way to reach the provider family ${provider.family}: add it to REACH.`);
    families.set(provider.family, { id: provider.family, label: provider.family === "openai" ? "OpenAI" : provider.name, translated: provider.format === "translated", ...reach });
  }
  return [...families.values()];
}

/** What one cell found: a pass, a pass the log has no cost for (and why), or the gateway's refusal. */
type Cell = { kind: "pass" } | { kind: "no-cost"; note: string } | { kind: "refused"; message: string };

interface CaseContext {
  family: Family;
  openai: OpenAI;
  anthropic: Anthropic;
  google: GoogleGenAI;
  /** The family's client pointed at the stand-in (for what aimock lacks). */
  standIn: OpenAI;
  /** The log id of the last answer the Google client got (its SDK keeps no response headers). */
  lastLogId(): Promise<string | null>;
  /** The log of a request, by the answer's `x-gateway-log-id`. */
  logged(logId: string | null): Promise<LogRecord>;
  /** The client through the gateway to the web search stand-in, with the family's headers. */
  search: OpenAI;
  /** Tool calls the local MCP server has run so far. */
  mcpCalls(): number;
}

interface Case {
  format: string;
  feature: string;
  /** Priced by what the answer holds, not tokens (images): the log has no tokens to count. */
  noTokens?: true;
  /** The log may have no cost when it says why (a provider that reports no usage, a model the table lacks). */
  costMayBeMissing?: true;
  /** The log ids of the requests the case made (one, or a plain and a streamed one). */
  run(context: CaseContext): Promise<string | null | Array<string | null>>;
}

/**
 * Usage and cost in the log: the answer's tokens counted, and priced (every chat model here is
 * in the price table); for a case that allows it, no cost with the log's reason.
 */
async function checkLog(context: CaseContext, logId: string | null, testCase: Case): Promise<Cell> {
  const record = await context.logged(logId);
  if (context.family.unpriced && !testCase.noTokens && !testCase.costMayBeMissing) expect(record.promptTokens, "the log's prompt tokens").toBeGreaterThan(0);
  if ((testCase.costMayBeMissing || context.family.unpriced) && record.costUsd === null && record.costNote) return { kind: "no-cost", note: record.costNote };
  if (!testCase.noTokens) expect(record.promptTokens, "the log's prompt tokens").toBeGreaterThan(0);
  expect(record.costUsd, "the log's cost").toBeGreaterThan(0);
  return { kind: "pass" };
}

/** The client a family's embeddings or images are asked through. */
const clientFor = (context: CaseContext, endpoint: Endpoint): OpenAI => (endpoint.via === "stand-in" ? context.standIn : context.openai);

/** A streamed Responses request's events, its final response and log id. */
async function streamedResponse(client: OpenAI, body: OpenAI.Responses.ResponseCreateParamsNonStreaming) {
  const { data: stream, response } = await client.responses.create({ ...body, stream: true }).withResponse();
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  const last = events.at(-1);
  expect(last?.type, "the stream's last event").toBe("response.completed");
  return { events, final: (last as OpenAI.Responses.ResponseCompletedEvent).response, logId: response.headers.get("x-gateway-log-id") };
}

/** The official document's schema of each web search and annotation event. */
const SEARCH_EVENT_SCHEMAS: Readonly<Record<string, string>> = {
  "response.web_search_call.in_progress": "ResponseWebSearchCallInProgressEvent",
  "response.web_search_call.searching": "ResponseWebSearchCallSearchingEvent",
  "response.web_search_call.completed": "ResponseWebSearchCallCompletedEvent",
  "response.output_text.annotation.added": "ResponseOutputTextAnnotationAddedEvent",
};

/**
 * A web search answer: a completed `web_search_call` with its query and a message whose text
 * carries `url_citation` annotations; in a whole answer the search comes first (a stream's items
 * are in the order the provider tells them: Gemini gives its searches with the last chunk).
 */
function checkSearched(response: OpenAI.Responses.Response, whole: boolean): void {
  const search = response.output.find((item) => item.type === "web_search_call") as OpenAI.Responses.ResponseFunctionWebSearch | undefined;
  expect(search, "a web_search_call item").toMatchObject({ status: "completed", action: { type: "search", query: expect.any(String) } });
  const message = response.output.find((item) => item.type === "message") as OpenAI.Responses.ResponseOutputMessage | undefined;
  const text = message?.content[0] as OpenAI.Responses.ResponseOutputText | undefined;
  if (whole) expect(response.output.indexOf(search!), "the search before the message").toBeLessThan(response.output.indexOf(message!));
  expect(text?.annotations.length, "url_citation annotations").toBeGreaterThan(0);
  for (const annotation of text!.annotations) {
    expect(annotation).toMatchObject({ type: "url_citation", url: expect.stringMatching(/^https:/), title: expect.any(String), start_index: expect.any(Number), end_index: expect.any(Number) });
    const cited = annotation as OpenAI.Responses.ResponseOutputText.URLCitation;
    expect(cited.end_index).toBeGreaterThan(cited.start_index);
    expect(cited.end_index).toBeLessThanOrEqual(text!.text.length);
  }
}

/** The MCP tool run's answer: the server's listing, the call with the tool's output, the model's answer of it. */
function checkToolRun(response: OpenAI.Responses.Response): void {
  expect(response.output.map((item) => item.type)).toEqual(["mcp_list_tools", "mcp_call", "message"]);
  expect(response.output[1]).toMatchObject({ type: "mcp_call", server_label: "conformance", name: "add", status: "completed", output: "SUM=5" });
  const message = response.output[2] as OpenAI.Responses.ResponseOutputMessage;
  expect(message.content.map((part) => ("text" in part ? part.text : "")).join("")).toBe("The sum is 5.");
}

const CASES: Case[] = [
  {
    format: "Chat completions",
    feature: "plain",
    async run(context) {
      const { data, response } = await context.openai.chat.completions.create({ model: context.family.model, messages: [{ role: "user", content: "conformance plain" }] }).withResponse();
      expect(data.choices[0]?.message.content).toBe("Plain answer.");
      return response.headers.get("x-gateway-log-id");
    },
  },
  {
    format: "Chat completions",
    feature: "streamed",
    async run(context) {
      const { data: stream, response } = await context.openai.chat.completions
        .create({ model: context.family.model, messages: [{ role: "user", content: "conformance stream" }], stream: true, stream_options: { include_usage: true } })
        .withResponse();
      let text = "";
      let usage = false;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? "";
        usage ||= (chunk.usage?.prompt_tokens ?? 0) > 0;
      }
      expect(text).toBe("One two three four five.");
      expect(usage, "a usage chunk").toBe(true);
      return response.headers.get("x-gateway-log-id");
    },
  },
  {
    format: "Chat completions",
    feature: "tools",
    async run(context) {
      const { data, response } = await context.openai.chat.completions
        .create({ model: context.family.model, messages: [{ role: "user", content: "conformance weather" }], tools: [{ type: "function", function: WEATHER_TOOL }] })
        .withResponse();
      const call = data.choices[0]?.message.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall | undefined;
      expect(call?.function.name).toBe("get_weather");
      expect(JSON.parse(call?.function.arguments ?? "null")).toEqual({ city: "Paris" });
      expect(data.choices[0]?.finish_reason).toBe("tool_calls");
      return response.headers.get("x-gateway-log-id");
    },
  },
  {
    format: "Chat completions",
    feature: "vision",
    async run(context) {
      const { data, response } = await context.openai.chat.completions
        .create({ model: context.family.model, messages: [{ role: "user", content: [{ type: "text", text: "conformance picture" }, { type: "image_url", image_url: { url: PIXEL } }] }] })
        .withResponse();
      expect(data.choices[0]?.message.content).toBe("A single pixel.");
      return response.headers.get("x-gateway-log-id");
    },
  },
  {
    format: "Chat completions",
    feature: "JSON mode",
    async run(context) {
      const { data, response } = await context.openai.chat.completions
        .create({ model: context.family.model, messages: [{ role: "user", content: "conformance json" }], response_format: { type: "json_object" } })
        .withResponse();
      expect(JSON.parse(data.choices[0]?.message.content ?? "null")).toEqual({ ok: true });
      return response.headers.get("x-gateway-log-id");
    },
  },
  {
    format: "Responses",
    feature: "plain",
    async run(context) {
      const { data, response } = await context.openai.responses.create({ model: context.family.model, input: "conformance plain" }).withResponse();
      expect(data.output_text).toBe("Plain answer.");
      expect(data.status).toBe("completed");
      return response.headers.get("x-gateway-log-id");
    },
  },
  {
    format: "Responses",
    feature: "streamed",
    async run(context) {
      const { data: stream, response } = await context.openai.responses.create({ model: context.family.model, input: "conformance stream", stream: true }).withResponse();
      let text = "";
      let completed = false;
      for await (const event of stream) {
        if (event.type === "response.output_text.delta") text += event.delta;
        if (event.type === "response.completed") completed = (event.response.usage?.input_tokens ?? 0) > 0;
      }
      expect(text).toBe("One two three four five.");
      expect(completed, "response.completed with usage").toBe(true);
      return response.headers.get("x-gateway-log-id");
    },
  },
  {
    format: "Responses",
    feature: "functions",
    async run(context) {
      const { data, response } = await context.openai.responses
        .create({ model: context.family.model, input: "conformance weather", tools: [{ type: "function", strict: false, ...WEATHER_TOOL }] })
        .withResponse();
      const call = data.output.find((item) => item.type === "function_call") as OpenAI.Responses.ResponseFunctionToolCall | undefined;
      expect(call?.name).toBe("get_weather");
      expect(JSON.parse(call?.arguments ?? "null")).toEqual({ city: "Paris" });
      return response.headers.get("x-gateway-log-id");
    },
  },
  {
    format: "Responses",
    feature: "web search",
    async run(context) {
      const body = { model: context.family.model, input: "conformance search", tools: [{ type: "web_search_preview" as const }] };
      const { data, response } = await context.search.responses.create(body).withResponse();
      checkSearched(data, true);
      const streamed = await streamedResponse(context.search, body);
      const types = streamed.events.map((event) => event.type);
      expect(types.filter((type) => type.startsWith("response.web_search_call.")).slice(0, 3)).toEqual([
        "response.web_search_call.in_progress",
        "response.web_search_call.searching",
        "response.web_search_call.completed",
      ]);
      const searchItem = streamed.events.find((event) => event.type === "response.output_item.done" && event.item.type === "web_search_call");
      expect(searchItem, "the web_search_call item's output_item.done").toBeDefined();
      // Each search and annotation event, and the answers the gateway builds, as the official document describes them.
      for (const event of streamed.events) {
        const schema = SEARCH_EVENT_SCHEMAS[event.type];
        if (schema) expect(openaiContractProblems(schema, event), JSON.stringify(event)).toEqual([]);
      }
      if (context.family.translated) for (const answer of [data, streamed.final]) expect(openaiContractProblems("Response", answer), JSON.stringify(answer)).toEqual([]);
      const added = streamed.events.filter((event) => event.type === "response.output_text.annotation.added").map((event) => (event as { annotation: unknown }).annotation);
      checkSearched(streamed.final, false);
      const finalText = (streamed.final.output.find((item) => item.type === "message") as OpenAI.Responses.ResponseOutputMessage).content[0] as OpenAI.Responses.ResponseOutputText;
      expect(added, "annotation events, as on the final output_text").toEqual(finalText.annotations);
      for (const logId of [response.headers.get("x-gateway-log-id"), streamed.logId]) {
        expect((await context.logged(logId)).webSearches, "the log's web searches").toBeGreaterThan(0);
      }
      return [response.headers.get("x-gateway-log-id"), streamed.logId];
    },
  },
  {
    format: "Responses",
    feature: "MCP (gateway-run)",
    async run(context) {
      const body = { model: context.family.model, input: "conformance mcp", tools: [{ type: "mcp", server_label: "conformance" } as unknown as OpenAI.Responses.Tool] };
      const before = context.mcpCalls();
      const { data, response } = await context.openai.responses.create(body).withResponse();
      checkToolRun(data);
      expect(context.mcpCalls() - before, "the MCP server's calls").toBe(1);
      const streamed = await streamedResponse(context.openai, body);
      const types = streamed.events.map((event) => event.type);
      expect(types).toEqual(expect.arrayContaining(["response.mcp_list_tools.completed", "response.mcp_call.in_progress", "response.mcp_call.completed", "response.output_text.delta"]));
      checkToolRun(streamed.final);
      if (context.family.translated) for (const answer of [data, streamed.final]) expect(openaiContractProblems("Response", answer), JSON.stringify(answer)).toEqual([]);
      expect(context.mcpCalls() - before, "the MCP server's calls").toBe(2);
      for (const logId of [response.headers.get("x-gateway-log-id"), streamed.logId]) {
        const steps = (await context.logged(logId)).toolRun;
        expect(steps.filter((step) => step.type === "mcp_call").map((step) => [step.tool, step.error])).toEqual([["add", null]]);
      }
      return [response.headers.get("x-gateway-log-id"), streamed.logId];
    },
  },
  {
    format: "Anthropic Messages",
    feature: "plain",
    async run(context) {
      const { data, response } = await context.anthropic.messages.create({ model: context.family.model, max_tokens: 100, messages: [{ role: "user", content: "conformance plain" }] }).withResponse();
      expect(data.content[0]).toMatchObject({ type: "text", text: "Plain answer." });
      expect(data.stop_reason).toBe("end_turn");
      return response.headers.get("x-gateway-log-id");
    },
  },
  {
    format: "Anthropic Messages",
    feature: "streamed",
    async run(context) {
      const { data: stream, response } = await context.anthropic.messages
        .create({ model: context.family.model, max_tokens: 100, messages: [{ role: "user", content: "conformance stream" }], stream: true })
        .withResponse();
      let text = "";
      let stopped = false;
      for await (const event of stream) {
        if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
        if (event.type === "message_stop") stopped = true;
      }
      expect(text).toBe("One two three four five.");
      expect(stopped, "message_stop").toBe(true);
      return response.headers.get("x-gateway-log-id");
    },
  },
  {
    format: "Anthropic Messages",
    feature: "tools",
    async run(context) {
      const { data, response } = await context.anthropic.messages
        .create({
          model: context.family.model,
          max_tokens: 100,
          messages: [{ role: "user", content: "conformance weather" }],
          tools: [{ name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, input_schema: WEATHER_TOOL.parameters as Anthropic.Tool.InputSchema }],
        })
        .withResponse();
      const use = data.content.find((block) => block.type === "tool_use");
      expect(use).toMatchObject({ name: "get_weather", input: { city: "Paris" } });
      expect(data.stop_reason).toBe("tool_use");
      return response.headers.get("x-gateway-log-id");
    },
  },
  {
    format: "Google Gemini API",
    feature: "plain",
    async run(context) {
      const answer = await context.google.models.generateContent({ model: context.family.model, contents: "conformance plain" });
      expect(answer.text).toBe("Plain answer.");
      expect(answer.candidates?.[0]?.finishReason).toBe("STOP");
      return await context.lastLogId();
    },
  },
  {
    format: "Google Gemini API",
    feature: "streamed",
    async run(context) {
      let text = "";
      let usage = false;
      for await (const chunk of await context.google.models.generateContentStream({ model: context.family.model, contents: "conformance stream" })) {
        text += chunk.text ?? "";
        usage ||= (chunk.usageMetadata?.promptTokenCount ?? 0) > 0;
      }
      expect(text).toBe("One two three four five.");
      expect(usage, "usageMetadata in the last chunk").toBe(true);
      return await context.lastLogId();
    },
  },
  {
    format: "Google Gemini API",
    feature: "function calls",
    async run(context) {
      const answer = await context.google.models.generateContent({
        model: context.family.model,
        contents: "conformance weather",
        config: { tools: [{ functionDeclarations: [{ name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, parametersJsonSchema: WEATHER_TOOL.parameters }] }] },
      });
      expect(answer.functionCalls?.[0]).toMatchObject({ name: "get_weather", args: { city: "Paris" } });
      return await context.lastLogId();
    },
  },
  {
    format: "Embeddings",
    feature: "text (base64)",
    costMayBeMissing: true,
    async run(context) {
      const { model } = context.family.embeddings;
      // The client asks for base64 and decodes it.
      const { data, response } = await clientFor(context, context.family.embeddings).embeddings.create({ model, input: "conformance embed" }).withResponse();
      expect(data.object).toBe("list");
      expect(data.data).toHaveLength(1);
      expect(data.data[0]?.embedding.length).toBeGreaterThan(1);
      expect(data.data[0]?.embedding.every((value) => Number.isFinite(value))).toBe(true);
      return response.headers.get("x-gateway-log-id");
    },
  },
  {
    format: "Images",
    feature: "generation (b64_json)",
    noTokens: true,
    costMayBeMissing: true,
    async run(context) {
      const { model } = context.family.images;
      const { data, response } = await clientFor(context, context.family.images)
        .images.generate({ model, prompt: "conformance image", size: "1024x1024", response_format: "b64_json" })
        .withResponse();
      expect(data.data?.map((image) => image.b64_json)).toEqual([PIXEL_PNG_BASE64]);
      return response.headers.get("x-gateway-log-id");
    },
  },
];

let tokens: GoogleTokenServer;
let standIn: Awaited<ReturnType<typeof startBeyondChatUpstream>>;
let searchUpstream: RecordingUpstream;
let tools: TestMcpServer;
const mocks = new Map<string, LLMock>();
const found = new Map<string, Cell>();
const failures: string[] = [];

// The columns are the families the running gateway lists, known before the tests are declared.
const gateway: RunningGateway = await startGateway();
const FAMILIES: Family[] = await listedFamilies(gateway);

beforeAll(async () => {
  // Vertex AI's access tokens are minted from a service-account key at a loopback token endpoint.
  tokens = await startGoogleTokenServer();
  tokens.answer({ accessToken: "ya29.conformance", expiresIn: 3600 });
  standIn = await startBeyondChatUpstream();
  searchUpstream = await startRecordingUpstream(webSearchAnswer);
  tools = await startMcpServer();
  const stored = await call(gateway, "POST", "/v1/mcp-servers", { body: { server_label: "conformance", server_url: tools.url, require_approval: "never" } });
  expect(stored.status).toBe(201);
  for (const family of FAMILIES) {
    const mock = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent" });
    // A tool's result first: the round after the call carries the request's first message too.
    mock.on({ toolResultContains: "SUM=5" }, { content: "The sum is 5.", usage: family.usage });
    mock.onMessage("conformance mcp", { toolCalls: [{ name: "add", arguments: JSON.stringify({ a: 2, b: 3 }) }], usage: family.usage });
    mock.onMessage("conformance plain", { content: "Plain answer.", usage: family.usage });
    mock.onMessage("conformance stream", { content: "One two three four five.", usage: family.usage });
    mock.onMessage("conformance weather", { toolCalls: [{ name: "get_weather", arguments: JSON.stringify({ city: "Paris" }) }], usage: family.usage });
    mock.onMessage("conformance picture", { content: "A single pixel.", usage: family.usage });
    mock.onMessage("conformance json", { content: '{"ok":true}', usage: family.usage });
    mock.onEmbedding("conformance embed", { embedding: [0.5, -0.25, 0.125] });
    mock.onImage("conformance image", { image: { b64Json: PIXEL_PNG_BASE64 } });
    await mock.start();
    mocks.set(family.id, mock);
  }
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await tokens?.close();
  await standIn?.close();
  await searchUpstream?.close();
  await tools?.close();
  for (const mock of mocks.values()) await mock.stop();
});

/** The newest log of the workspace: the cases run one request at a time. */
async function newestLogId(): Promise<string | null> {
  await gateway.flushLogs();
  const { records } = await gateway.gateway.deps.store.logs.list({ workspaceId: DEFAULT_WORKSPACE_ID, limit: 1 });
  return records[0]?.id ?? null;
}

const cellKey = (testCase: Case, family: Family): string => `${testCase.format}|${testCase.feature}|${family.id}`;

describe("the conformance matrix", () => {
  for (const family of FAMILIES) {
    it(`runs every format and feature against ${family.label}`, async () => {
      const headers = { "x-gateway-api-key": gateway.adminKey, ...family.headers(mocks.get(family.id)!.url) };
      const apiKey = family.apiKey?.() ?? UPSTREAM_KEY;
      const context: CaseContext = {
        family,
        openai: new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey, maxRetries: 0, defaultHeaders: headers }),
        anthropic: new Anthropic({ baseURL: gateway.url, apiKey, maxRetries: 0, defaultHeaders: headers }),
        google: new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gateway.url, headers } }),
        standIn: new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey, maxRetries: 0, defaultHeaders: { ...headers, "x-gateway-custom-host": family.standInHost(standIn.base) } }),
        lastLogId: newestLogId,
        logged: async (logId) => {
          expect(logId, "x-gateway-log-id").toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
          return storedLog(gateway, logId!);
        },
        search: new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey, maxRetries: 0, defaultHeaders: { ...headers, ...family.headers(searchUpstream.url.replace(/\/v1$/, "")) } }),
        mcpCalls: () => tools.calls.length,
      };
      for (const testCase of CASES) {
        const key = cellKey(testCase, family);
        try {
          const ran = await testCase.run(context);
          let cell: Cell = { kind: "pass" };
          for (const logId of Array.isArray(ran) ? ran : [ran]) {
            const checked = await checkLog(context, logId, testCase);
            if (checked.kind !== "pass") cell = checked;
          }
          found.set(key, cell);
        } catch (error) {
          const status = (error as { status?: number }).status;
          const message = (error as { error?: { error?: { message?: string }; message?: string } }).error;
          const said = message?.error?.message ?? message?.message;
          if (status === 400 && typeof said === "string") found.set(key, { kind: "refused", message: said });
          else failures.push(`${key}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }, 120_000);
  }

  it("finds every cell a pass or a clear 400, and docs/conformance.md says so", async () => {
    expect(failures).toEqual([]);
    const page = renderPage(found);
    if (process.env.CONFORMANCE_WRITE === "1") await writeFile(PAGE, page);
    expect(await readFile(PAGE, "utf8").catch(() => ""), "docs/conformance.md is stale: run CONFORMANCE_WRITE=1 npx vitest run test/conformance-matrix.test.ts").toBe(page);
  });
});

function renderPage(cells: ReadonlyMap<string, Cell>): string {
  const refusals: string[] = [];
  const notes: string[] = [];
  const cellText = (cell: Cell | undefined): string => {
    if (!cell) return "not run";
    if (cell.kind === "pass") return "pass";
    if (cell.kind === "no-cost") {
      if (!notes.includes(cell.note)) notes.push(cell.note);
      return `pass, no cost [${String.fromCharCode(97 + notes.indexOf(cell.note))}]`;
    }
    if (!refusals.includes(cell.message)) refusals.push(cell.message);
    return `400 [${refusals.indexOf(cell.message) + 1}]`;
  };
  const rows = CASES.map((testCase) => `| ${testCase.format} | ${testCase.feature} | ${FAMILIES.map((family) => cellText(cells.get(cellKey(testCase, family)))).join(" | ")} |`);
  return [
    "# Conformance",
    "",
    "Which client format and feature works with which provider family, as `test/conformance-matrix.test.ts` finds",
    "it. The columns are the provider families `GET /v1/providers` lists (`family`) that take chat completions,",
    "each reached through its first listed provider. Each request goes through the gateway to a local mock",
    "speaking the provider's own wire format (the official `openai`, `@anthropic-ai/sdk` and `@google/genai`",
    "clients in front; for embeddings and images, where the mock lacks a provider's endpoint or reports no usage",
    "where the real API does, a stand-in following the provider's documented shapes), and passes when the answer",
    "has its format's shape, a stream ends with its format's end event and usage, and the log holds the request's",
    "tokens and cost. *Web search* sends `web_search_preview` to a stand-in answering in the provider's documented",
    "search format (Anthropic's web search tool, Google Search grounding, OpenAI's `web_search_call`), plain and",
    "streamed: a `web_search_call` item, `url_citation` annotations on the message's text, the",
    "`response.web_search_call.*` and `response.output_text.annotation.added` events (each checked against its",
    "schema in OpenAI's OpenAPI document, as is every Responses answer the gateway builds), and the searches",
    "counted in the log (`usage.web_searches`). *MCP (gateway-run)* names a stored MCP server the gateway runs the",
    "tools of, plain and streamed: the `mcp_list_tools`, `mcp_call` and message items, the `response.mcp_call.*`",
    "events, the server called once per request, and the call in the log's `tool_run`. \"pass, no cost\" is an",
    "answer in the right shape whose log has the tokens but no cost, for the reason the log gives, quoted below (a",
    "provider whose answer reports no usage, a model the price table lacks). A cell that is not a pass is the 400",
    "the gateway answers with, quoted below; no cell is a wrong answer. The page is generated: the test fails when",
    "it is stale (`CONFORMANCE_WRITE=1 npx vitest run test/conformance-matrix.test.ts` rewrites it).",
    "",
    `| Format | Feature | ${FAMILIES.map((family) => family.label).join(" | ")} |`,
    `|---|---|${FAMILIES.map(() => "---").join("|")}|`,
    ...rows,
    "",
    ...(notes.length > 0 ? ["Without a cost, as the log says:", "", ...notes.map((note, index) => `- [${String.fromCharCode(97 + index)}] ${note}`), ""] : []),
    ...(refusals.length > 0 ? ["Refusals:", "", ...refusals.map((message, index) => `${index + 1}. ${message}`), ""] : []),
  ].join("\n");
}
