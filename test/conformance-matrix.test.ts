/**
 * The conformance matrix: every inbound format and feature, sent through the gateway to every
 * provider family (aimock speaking each provider's own wire format), checked for the answer's
 * shape, the stream's end, and the usage and cost in the log. Each cell is a pass or the 400 the
 * gateway answers with; anything else fails the test. The table is `docs/conformance.md`: the
 * test fails when the page differs from what the run found (`CONFORMANCE_WRITE=1` rewrites it).
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

const PAGE = join(import.meta.dirname, "..", "docs", "conformance.md");
const UPSTREAM_KEY = "sk-conformance-upstream";
const PIXEL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const WEATHER_TOOL = { name: "get_weather", description: "The weather in a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };

/** A provider family as the matrix reaches it: its gateway headers, the model it is asked for, its usage in its own names. */
interface Family {
  id: string;
  label: string;
  model: string;
  usage: Record<string, number>;
  headers(upstreamUrl: string): Record<string, string>;
  /** The upstream credential the client sends (a service account's key for Vertex AI). */
  apiKey?(): string;
}

const FAMILIES: Family[] = [
  { id: "openai", label: "OpenAI", model: "gpt-4o-mini", usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 }, headers: (url) => ({ "x-gateway-provider": "openai", "x-gateway-custom-host": `${url}/v1` }) },
  { id: "azure-openai", label: "Azure OpenAI", model: "gpt-4o-mini", usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 }, headers: (url) => ({ "x-gateway-provider": "azure-openai", "x-gateway-custom-host": url }) },
  { id: "anthropic", label: "Anthropic", model: "claude-sonnet-4-5", usage: { input_tokens: 12, output_tokens: 5 }, headers: (url) => ({ "x-gateway-provider": "anthropic", "x-gateway-custom-host": `${url}/v1` }) },
  { id: "gemini", label: "Gemini", model: "gemini-2.5-flash", usage: { promptTokenCount: 12, candidatesTokenCount: 5 }, headers: (url) => ({ "x-gateway-provider": "gemini", "x-gateway-custom-host": `${url}/v1beta` }) },
  {
    id: "vertex",
    label: "Vertex AI",
    model: "gemini-2.5-flash",
    usage: { promptTokenCount: 12, candidatesTokenCount: 5 },
    headers: (url) => ({ "x-gateway-provider": "vertex", "x-gateway-custom-host": `${url}/v1`, "x-gateway-vertex-project": "conformance-project", "x-gateway-vertex-location": "us-central1" }),
    apiKey: () => tokens.account("gateway@conformance-project.iam.gserviceaccount.com").keyJson,
  },
  { id: "bedrock", label: "Bedrock", model: "anthropic.claude-3-5-haiku-20241022-v1:0", usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 }, headers: (url) => ({ "x-gateway-provider": "bedrock", "x-gateway-custom-host": url, "x-gateway-aws-access-key-id": "AKIAIOSFODNN7EXAMPLE", "x-gateway-aws-secret-access-key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYCONFORMANCE", "x-gateway-aws-region": "us-east-1" }) },
];

/** What one cell found: a pass, or the gateway's refusal. */
type Cell = { kind: "pass" } | { kind: "refused"; message: string };

interface CaseContext {
  family: Family;
  openai: OpenAI;
  anthropic: Anthropic;
  google: GoogleGenAI;
  /** The log id of the last answer the Google client got (its SDK keeps no response headers). */
  lastLogId(): Promise<string | null>;
  /** The log of a request, by the answer's `x-gateway-log-id`. */
  logged(logId: string | null): Promise<{ promptTokens: number; costUsd: number | null }>;
}

interface Case {
  format: string;
  feature: string;
  run(context: CaseContext): Promise<string | null>;
}

/** Usage and cost in the log: the answer's tokens counted, and priced (every model here is in the price table). */
async function checkLog(context: CaseContext, logId: string | null): Promise<void> {
  const record = await context.logged(logId);
  expect(record.promptTokens, "the log's prompt tokens").toBeGreaterThan(0);
  expect(record.costUsd, "the log's cost").toBeGreaterThan(0);
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
];

let gateway: RunningGateway;
let tokens: GoogleTokenServer;
const mocks = new Map<string, LLMock>();
const found = new Map<string, Cell>();
const failures: string[] = [];

beforeAll(async () => {
  // Vertex AI's access tokens are minted from a service-account key at a loopback token endpoint.
  tokens = await startGoogleTokenServer();
  tokens.answer({ accessToken: "ya29.conformance", expiresIn: 3600 });
  gateway = await startGateway();
  for (const family of FAMILIES) {
    const mock = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent" });
    mock.onMessage("conformance plain", { content: "Plain answer.", usage: family.usage });
    mock.onMessage("conformance stream", { content: "One two three four five.", usage: family.usage });
    mock.onMessage("conformance weather", { toolCalls: [{ name: "get_weather", arguments: JSON.stringify({ city: "Paris" }) }], usage: family.usage });
    mock.onMessage("conformance picture", { content: "A single pixel.", usage: family.usage });
    mock.onMessage("conformance json", { content: '{"ok":true}', usage: family.usage });
    await mock.start();
    mocks.set(family.id, mock);
  }
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await tokens?.close();
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
          await checkLog(context, logId);
          found.set(key, { kind: "pass" });
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
  const cellText = (cell: Cell | undefined): string => {
    if (!cell) return "not run";
    if (cell.kind === "pass") return "pass";
    if (!refusals.includes(cell.message)) refusals.push(cell.message);
    return `400 [${refusals.indexOf(cell.message) + 1}]`;
  };
  const rows = CASES.map((testCase) => `| ${testCase.format} | ${testCase.feature} | ${FAMILIES.map((family) => cellText(cells.get(cellKey(testCase, family)))).join(" | ")} |`);
  return [
    "# Conformance",
    "",
    "Which client format and feature works with which provider family, as `test/conformance-matrix.test.ts` finds",
    "it: each request goes through the gateway to a local mock speaking the provider's own wire format (the",
    "official `openai`, `@anthropic-ai/sdk` and `@google/genai` clients in front), and passes when the answer has its format's",
    "shape, a stream ends with its format's end event and usage, and the log holds the request's tokens and",
    "cost. A cell that is not a pass is the 400 the gateway answers with, quoted below; no cell is a wrong",
    "answer. The page is generated: the test fails when it is stale (`CONFORMANCE_WRITE=1 npx vitest run",
    "test/conformance-matrix.test.ts` rewrites it).",
    "",
    `| Format | Feature | ${FAMILIES.map((family) => family.label).join(" | ")} |`,
    `|---|---|${FAMILIES.map(() => "---").join("|")}|`,
    ...rows,
    "",
    ...(refusals.length > 0 ? ["Refusals:", "", ...refusals.map((message, index) => `${index + 1}. ${message}`), ""] : []),
  ].join("\n");
}
