/**
 * A smoke test of every OpenAI-format provider in the catalogue, through the official `openai`
 * client and the real gateway, each pointed at aimock by a custom host (behind a tap that keeps
 * what went on the wire): a plain chat and a streamed one, the answer, the usage in the log, and
 * the cost where the price table lists the model. A provider added to the catalogue is in this
 * loop without another line; its chat field rules are checked below against its own refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import priceData from "../src/providers/prices.json" with { type: "json" };
import { PROVIDERS } from "../src/providers/catalogue.ts";
import type { Provider } from "../src/providers/provider.ts";
import { startGateway, startUpstream, storedLog, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startTappedUpstream, type TappedUpstream } from "./support/tapped-upstream.ts";

type Price = { input: number; output: number } | null;
const prices = priceData.providers as Record<string, Record<string, Price>>;

interface Row {
  id: string;
  provider: Provider;
  /** A model the price table lists for the provider (the cost is checked), else one it does not. */
  model: string;
  price: Price;
  /** Headers the provider needs besides the custom host. */
  headers: Record<string, string>;
}

const FIELD_VALUES: Record<string, string> = { azure_deployment: "smoke-deployment" };

const rows: Row[] = [...PROVIDERS.values()]
  .filter((provider) => provider.openaiFormat)
  .map((provider) => {
    const priced = Object.entries(prices[provider.id] ?? {}).find(([, price]) => price !== null);
    const headers = Object.fromEntries((provider.credentialFields ?? []).flatMap((field) => (FIELD_VALUES[field.name] ? [[field.header, FIELD_VALUES[field.name]!]] : [])));
    return { id: provider.id, provider, model: priced?.[0] ?? "smoke-model", price: priced?.[1] ?? null, headers };
  });

let gateway: RunningGateway;
let upstream: LLMock;
let tap: TappedUpstream;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("provider smoke", { content: "Smoke answer.", usage: { prompt_tokens: 21, completion_tokens: 4, total_tokens: 25 } });
  tap = await startTappedUpstream(upstream.url);
  gateway = await startGateway();
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await tap?.close();
  await upstream?.stop();
});

function clientFor(row: Row): OpenAI {
  // Azure OpenAI takes the bare resource host; every other provider its API's base path.
  const host = row.id === "azure-openai" ? tap.url : `${tap.url}/v1`;
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: UPSTREAM_KEY,
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": row.id, "x-gateway-custom-host": host, ...row.headers },
  });
}

const ask: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "provider smoke" }];

function expectedCost(row: Row): number | null {
  return row.price ? (21 * row.price.input + 4 * row.price.output) / 1e6 : null;
}

describe("the smoke table", () => {
  it("holds every OpenAI-format provider of a catalogue of at least 40", () => {
    expect(PROVIDERS.size).toBeGreaterThanOrEqual(40);
    expect(rows.length).toBe([...PROVIDERS.values()].filter((provider) => provider.openaiFormat).length);
    expect(rows.length).toBeGreaterThanOrEqual(35);
  });
});

describe.each(rows)("OpenAI-format provider $id", (row) => {
  it("answers a plain chat, logged with its usage and cost", async () => {
    const { data, response } = await clientFor(row).chat.completions.create({ model: row.model, messages: ask }).withResponse();
    expect(data.choices[0]?.message.content).toBe("Smoke answer.");
    expect(response.headers.get("x-gateway-provider")).toBe(row.id);
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ provider: row.id, model: row.model, status: 200, success: true, stream: false, promptTokens: 21, completionTokens: 4, totalTokens: 25 });
    const cost = expectedCost(row);
    if (cost === null) expect(record.costUsd).toBeNull();
    else expect(record.costUsd).toBeCloseTo(cost, 12);
  });

  it("streams a chat whose usage reaches the log as the provider reports it", async () => {
    const sentBefore = tap.bodies.length;
    const { data: stream, response } = await clientFor(row).chat.completions.create({ model: row.model, messages: ask, stream: true }).withResponse();
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("Smoke answer.");
    // The client did not ask for usage, so no usage chunk reaches it.
    expect(chunks.every((chunk) => !chunk.usage)).toBe(true);
    const wire = JSON.parse(tap.bodies[sentBefore]!) as { stream_options?: { include_usage?: boolean } };
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ provider: row.id, status: 200, success: true, stream: true });
    if (streamUsageOf(row) === "stream_options") {
      // The gateway asked for the usage chunk, and logged it.
      expect(wire.stream_options).toEqual({ include_usage: true });
      expect(record).toMatchObject({ promptTokens: 21, completionTokens: 4, totalTokens: 25 });
      const cost = expectedCost(row);
      if (cost !== null) expect(record.costUsd).toBeCloseTo(cost, 12);
    } else {
      // A provider that reports usage unasked (and may refuse `stream_options`) is not sent it.
      expect(wire.stream_options).toBeUndefined();
    }
  });
});

/** How the provider's streams report usage, read from what its chat transform sends. */
function streamUsageOf(row: Row): "stream_options" | "always" {
  const sent = row.provider.operations.createChatCompletion?.request?.({ model: "m", messages: [] }, { model: "m", stream: true });
  return sent && "body" in sent && sent.body.stream_options ? "stream_options" : "always";
}

describe("chat fields a provider refuses", () => {
  const refusals: Array<{ provider: string; body: Record<string, unknown>; param: string; name: string }> = [
    { provider: "groq", body: { logprobs: true }, param: "logprobs", name: "Groq" },
    { provider: "groq", body: { n: 2 }, param: "n", name: "Groq" },
    { provider: "groq", body: { messages: [{ role: "user", content: "provider smoke", name: "ana" }] }, param: "messages[0].name", name: "Groq" },
    { provider: "cerebras", body: { presence_penalty: 0.5 }, param: "presence_penalty", name: "Cerebras" },
  ];

  it.each(refusals)("$provider refuses $param with a 400 naming it and the provider, before anything is sent", async ({ provider, body, param, name }) => {
    const row = rows.find((candidate) => candidate.id === provider)!;
    const sentBefore = tap.bodies.length;
    for (const stream of [false, true]) {
      const failure = await clientFor(row)
        .chat.completions.create({ model: row.model, messages: ask, stream, ...body } as OpenAI.ChatCompletionCreateParamsNonStreaming)
        .then(() => null, (error: unknown) => error);
      expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
      const error = (failure as InstanceType<typeof OpenAI.BadRequestError>).error as { code: string; param: string; message: string };
      expect(error).toMatchObject({ code: "invalid_request", param });
      expect(error.message).toContain(name);
    }
    expect(tap.bodies.length).toBe(sentBefore);
  });

  it("lets the same fields through to a provider that takes them", async () => {
    const row = rows.find((candidate) => candidate.id === "together")!;
    const data = await clientFor(row).chat.completions.create({ model: row.model, messages: ask, logprobs: true, presence_penalty: 0.5, n: 1 });
    expect(data.choices[0]?.message.content).toBe("Smoke answer.");
    expect(JSON.parse(tap.bodies.at(-1)!)).toMatchObject({ logprobs: true, presence_penalty: 0.5 });
  });
});
