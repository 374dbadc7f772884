/**
 * The conformance matrix: every inbound format and feature, sent through the gateway to every
 * provider family (aimock speaking each provider's own wire format; for the embedding and image
 * endpoints aimock lacks, or answers without the usage the real API reports, a stand-in following
 * the provider's documented shapes), checked for the answer's shape, the stream's end, and the
 * usage and cost in the log. Each cell is a pass, a pass whose log has no cost for a reason the
 * log states (embeddings and images only: a provider that reports no usage, a model the price
 * table lacks), or the 400 the gateway answers with; anything else fails the test. The table is
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
import { DEFAULT_WORKSPACE_ID } from "../src/auth/auth-context.ts";
import { startGateway, storedLog, type RunningGateway } from "./support/harness.ts";
import { startGoogleTokenServer, type GoogleTokenServer } from "./support/google-token-server.ts";
import { PIXEL_PNG_BASE64, startBeyondChatUpstream } from "./support/beyond-chat-upstream.ts";

const PAGE = join(import.meta.dirname, "..", "docs", "conformance.md");
const UPSTREAM_KEY = "sk-conformance-upstream";
const PIXEL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const WEATHER_TOOL = { name: "get_weather", description: "The weather in a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };

/** Where a family's embeddings or images are asked for: the model, and whether aimock or the stand-in answers. */
interface Endpoint {
  model: string;
  via: "aimock" | "stand-in";
}

/** A provider family as the matrix reaches it: its gateway headers, the model it is asked for, its usage in its own names. */
interface Family {
  id: string;
  label: string;
  model: string;
  usage: Record<string, number>;
  headers(upstreamUrl: string): Record<string, string>;
  embeddings: Endpoint;
  images: Endpoint;
  /** The custom host that sends the family's requests to the stand-in at `base` (no path). */
  standInHost(base: string): string;
  /** The upstream credential the client sends (a service account's key for Vertex AI). */
  apiKey?(): string;
}

const FAMILIES: Family[] = [
  {
    id: "openai",
    label: "OpenAI",
    model: "gpt-4o-mini",
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
    headers: (url) => ({ "x-gateway-provider": "openai", "x-gateway-custom-host": `${url}/v1` }),
    embeddings: { model: "text-embedding-3-small", via: "stand-in" },
    images: { model: "dall-e-3", via: "aimock" },
    standInHost: (base) => `${base}/v1`,
  },
  {
    id: "azure-openai",
    label: "Azure OpenAI",
    model: "gpt-4o-mini",
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
    headers: (url) => ({ "x-gateway-provider": "azure-openai", "x-gateway-custom-host": url }),
    embeddings: { model: "text-embedding-3-small", via: "stand-in" },
    images: { model: "dall-e-3", via: "aimock" },
    standInHost: (base) => base,
  },
  {
    id: "anthropic",
    label: "Anthropic",
    model: "claude-sonnet-4-5",
    usage: { input_tokens: 12, output_tokens: 5 },
    headers: (url) => ({ "x-gateway-provider": "anthropic", "x-gateway-custom-host": `${url}/v1` }),
    embeddings: { model: "claude-sonnet-4-5", via: "aimock" },
    images: { model: "claude-sonnet-4-5", via: "aimock" },
    standInHost: (base) => `${base}/v1`,
  },
  {
    id: "gemini",
    label: "Gemini",
    model: "gemini-2.5-flash",
    usage: { promptTokenCount: 12, candidatesTokenCount: 5 },
    headers: (url) => ({ "x-gateway-provider": "gemini", "x-gateway-custom-host": `${url}/v1beta` }),
    embeddings: { model: "gemini-embedding-001", via: "aimock" },
    images: { model: "imagen-4.0-fast-generate-001", via: "aimock" },
    standInHost: (base) => `${base}/v1beta`,
  },
  {
    id: "vertex",
    label: "Vertex AI",
    model: "gemini-2.5-flash",
    usage: { promptTokenCount: 12, candidatesTokenCount: 5 },
    headers: (url) => ({ "x-gateway-provider": "vertex", "x-gateway-custom-host": `${url}/v1`, "x-gateway-vertex-project": "conformance-project", "x-gateway-vertex-location": "us-central1" }),
    apiKey: () => tokens.account("gateway@conformance-project.iam.gserviceaccount.com").keyJson,
    embeddings: { model: "gemini-embedding-001", via: "stand-in" },
    images: { model: "imagen-4.0-generate-001", via: "stand-in" },
    standInHost: (base) => `${base}/v1`,
  },
  {
    id: "bedrock",
    label: "Bedrock",
    model: "anthropic.claude-3-5-haiku-20241022-v1:0",
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
    headers: (url) => ({ "x-gateway-provider": "bedrock", "x-gateway-custom-host": url, "x-gateway-aws-access-key-id": "AKIAIOSFODNN7EXAMPLE", "x-gateway-aws-secret-access-key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYCONFORMANCE", "x-gateway-aws-region": "us-east-1" }),
    embeddings: { model: "amazon.titan-embed-text-v2:0", via: "stand-in" },
    images: { model: "amazon.nova-canvas-v1:0", via: "stand-in" },
    standInHost: (base) => base,
  },
  {
    id: "cohere",
    label: "Cohere",
    model: "command-r-08-2024",
    usage: { input_tokens: 12, output_tokens: 5 },
    headers: (url) => ({ "x-gateway-provider": "cohere", "x-gateway-custom-host": url }),
    embeddings: { model: "embed-english-v3.0", via: "stand-in" },
    images: { model: "command-r-08-2024", via: "aimock" },
    standInHost: (base) => base,
  },
];

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
  logged(logId: string | null): Promise<{ promptTokens: number; costUsd: number | null; costNote: string | null }>;
}

interface Case {
  format: string;
  feature: string;
  /** Priced by what the answer holds, not tokens (images): the log has no tokens to count. */
  noTokens?: true;
  /** The log may have no cost when it says why (a provider that reports no usage, a model the table lacks). */
  costMayBeMissing?: true;
  run(context: CaseContext): Promise<string | null>;
}

/**
 * Usage and cost in the log: the answer's tokens counted, and priced (every chat model here is
 * in the price table); for a case that allows it, no cost with the log's reason.
 */
async function checkLog(context: CaseContext, logId: string | null, testCase: Case): Promise<Cell> {
  const record = await context.logged(logId);
  if (testCase.costMayBeMissing && record.costUsd === null && record.costNote) return { kind: "no-cost", note: record.costNote };
  if (!testCase.noTokens) expect(record.promptTokens, "the log's prompt tokens").toBeGreaterThan(0);
  expect(record.costUsd, "the log's cost").toBeGreaterThan(0);
  return { kind: "pass" };
}

/** The client a family's embeddings or images are asked through. */
const clientFor = (context: CaseContext, endpoint: Endpoint): OpenAI => (endpoint.via === "stand-in" ? context.standIn : context.openai);

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

let gateway: RunningGateway;
let tokens: GoogleTokenServer;
let standIn: Awaited<ReturnType<typeof startBeyondChatUpstream>>;
const mocks = new Map<string, LLMock>();
const found = new Map<string, Cell>();
const failures: string[] = [];

beforeAll(async () => {
  // Vertex AI's access tokens are minted from a service-account key at a loopback token endpoint.
  tokens = await startGoogleTokenServer();
  tokens.answer({ accessToken: "ya29.conformance", expiresIn: 3600 });
  gateway = await startGateway();
  standIn = await startBeyondChatUpstream();
  for (const family of FAMILIES) {
    const mock = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent" });
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
          expect(logId, "x-gateway-log-id").toBeTruthy();
          return storedLog(gateway, logId!);
        },
      };
      for (const testCase of CASES) {
        const key = cellKey(testCase, family);
        try {
          const logId = await testCase.run(context);
          found.set(key, await checkLog(context, logId, testCase));
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
    "it: each request goes through the gateway to a local mock speaking the provider's own wire format (the",
    "official `openai`, `@anthropic-ai/sdk` and `@google/genai` clients in front; for embeddings and images, where",
    "the mock lacks a provider's endpoint or reports no usage where the real API does, a stand-in following the",
    "provider's documented shapes), and passes when the answer has its format's shape, a stream ends with its",
    "format's end event and usage, and the log holds the request's tokens and cost. \"pass, no cost\" is an answer",
    "in the right shape whose log has no cost, for the reason the log gives, quoted below (a provider whose answer",
    "reports no usage, a model the price table lacks). A cell that is not a pass is the 400 the gateway answers",
    "with, quoted below; no cell is a wrong answer. The page is generated: the test fails when it is stale",
    "(`CONFORMANCE_WRITE=1 npx vitest run test/conformance-matrix.test.ts` rewrites it).",
    "",
    `| Format | Feature | ${FAMILIES.map((family) => family.label).join(" | ")} |`,
    `|---|---|${FAMILIES.map(() => "---").join("|")}|`,
    ...rows,
    "",
    ...(notes.length > 0 ? ["Without a cost, as the log says:", "", ...notes.map((note, index) => `- [${String.fromCharCode(97 + index)}] ${note}`), ""] : []),
    ...(refusals.length > 0 ? ["Refusals:", "", ...refusals.map((message, index) => `${index + 1}. ${message}`), ""] : []),
  ].join("\n");
}
