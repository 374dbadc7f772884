/**
 * Chat completions on Cohere through its v2 Chat API, through the official openai client against
 * aimock (which speaks `/v2/chat`, plain and streamed, with tool calls), a tap in front of it
 * showing the request as the gateway sent it: the answer in OpenAI's shape, the stream's chunks,
 * tool calls both ways, the log's billed tokens and cost, and fields Cohere cannot take refused
 * with a 400 naming field and provider.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { openaiContractProblems } from "./support/contract.ts";
import { call, startGateway, startUpstream, storedLog, type RunningGateway } from "./support/harness.ts";
import { startTappedUpstream, type TappedUpstream } from "./support/tapped-upstream.ts";

const MODEL = "command-r-08-2024";
const WEATHER = {
  type: "function" as const,
  function: { name: "get_weather", description: "Weather of a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
};

let gateway: RunningGateway;
let aimock: LLMock;
let tap: TappedUpstream;

beforeAll(async () => {
  openaiContractProblems("CreateChatCompletionResponse", {});
  aimock = await startUpstream();
  aimock.onMessage("cohere hello", { content: "Hello from Cohere!", usage: { input_tokens: 12, output_tokens: 4 } });
  aimock.onMessage("cohere stream", { content: "One two three four five", usage: { input_tokens: 9, output_tokens: 6 } });
  aimock.onMessage("cohere weather", { toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris"}' }], usage: { input_tokens: 30, output_tokens: 10 } });
  aimock.onToolResult("call-paris-1", { content: "It is sunny in Paris.", usage: { input_tokens: 40, output_tokens: 7 } });
  tap = await startTappedUpstream(aimock.url);
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await tap?.close();
  await aimock?.stop();
});

const headers = (): Record<string, string> => ({ "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "cohere", "x-gateway-custom-host": tap.url });

function client(): OpenAI {
  return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "cohere-upstream-key", maxRetries: 0, defaultHeaders: headers() });
}

const lastSent = (): Record<string, any> => JSON.parse(tap.bodies.at(-1)!);

async function logOf(response: Response) {
  return storedLog(gateway, response.headers.get("x-gateway-log-id")!);
}

const cost = (input: number, output: number): number => (input * 0.15 + output * 0.6) / 1e6;

describe("Cohere chat completions through the official openai client", () => {
  it("translates a plain completion to /v2/chat and back, logging billed tokens and cost", async () => {
    const { data, response } = await client()
      .chat.completions.create({ model: MODEL, messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "cohere hello" }], max_tokens: 50, top_p: 0.9, stop: "END", temperature: 0.2 })
      .withResponse();
    expect(openaiContractProblems("CreateChatCompletionResponse", data)).toEqual([]);
    expect(data.choices[0]?.message.content).toBe("Hello from Cohere!");
    expect(data.choices[0]?.finish_reason).toBe("stop");
    expect(data.model).toBe(MODEL);
    expect(data.usage).toEqual({ prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 });
    expect(lastSent()).toEqual({
      model: MODEL,
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "cohere hello" }],
      max_tokens: 50,
      p: 0.9,
      temperature: 0.2,
      stop_sequences: ["END"],
    });
    const record = await logOf(response);
    expect(record).toMatchObject({ provider: "cohere", route: "createChatCompletion", promptTokens: 12, completionTokens: 4 });
    expect(record.costUsd).toBeCloseTo(cost(12, 4), 12);
  });

  it("streams content deltas as chunks, then the usage chunk the client asked for, and logs the usage", async () => {
    const { data: stream, response } = await client()
      .chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "cohere stream" }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    let text = "";
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe("One two three four five");
    expect(finish).toBe("stop");
    expect(usage).toEqual({ prompt_tokens: 9, completion_tokens: 6, total_tokens: 15 });
    expect(lastSent()).toMatchObject({ stream: true });
    expect(lastSent()).not.toHaveProperty("stream_options");
    const record = await logOf(response);
    expect(record).toMatchObject({ stream: true, promptTokens: 9, completionTokens: 6 });
    expect(record.costUsd).toBeCloseTo(cost(9, 6), 12);
  });

  it("sends tools, answers a tool call, and sends the tool's result back in Cohere's shape", async () => {
    const { data, response } = await client()
      .chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "cohere weather" }], tools: [WEATHER], tool_choice: "required" })
      .withResponse();
    const call = data.choices[0]?.message.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe("get_weather");
    expect(JSON.parse(call.function.arguments)).toEqual({ city: "Paris" });
    expect(data.choices[0]?.finish_reason).toBe("tool_calls");
    expect(lastSent()).toMatchObject({ tools: [WEATHER], tool_choice: "REQUIRED" });
    expect(await logOf(response)).toMatchObject({ promptTokens: 30, completionTokens: 10 });

    const answer = await client().chat.completions.create({
      model: MODEL,
      messages: [
        { role: "user", content: "and in Paris?" },
        { role: "assistant", content: null, tool_calls: [{ id: "call-paris-1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
        { role: "tool", tool_call_id: "call-paris-1", content: "sunny" },
      ],
      tools: [WEATHER],
    });
    expect(answer.choices[0]?.message.content).toBe("It is sunny in Paris.");
    expect(lastSent().messages.slice(1)).toEqual([
      { role: "assistant", tool_calls: [{ id: "call-paris-1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
      { role: "tool", tool_call_id: "call-paris-1", content: "sunny" },
    ]);
  });

  it("streams a tool call: its id and name first, then its arguments", async () => {
    const stream = await client().chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "cohere weather" }], tools: [WEATHER], stream: true });
    let name = "";
    let args = "";
    let id: string | undefined;
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        expect(delta.index).toBe(0);
        id ??= delta.id;
        name += delta.function?.name ?? "";
        args += delta.function?.arguments ?? "";
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(id).toMatch(/^\S+$/);
    expect(name).toBe("get_weather");
    expect(JSON.parse(args)).toEqual({ city: "Paris" });
    expect(finish).toBe("tool_calls");
  });

  it("refuses what Cohere cannot take with a 400 naming field and provider, and keeps serving", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ logprobs: true }, "logprobs"],
      [{ n: 2 }, "n"],
      [{ tools: [WEATHER], tool_choice: { type: "function", function: { name: "get_weather" } } }, "tool_choice"],
      [{ messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "AAAA", format: "wav" } }] }] }, "messages[0].content[0]"],
    ];
    for (const [fields, param] of cases) {
      const answer = await call(gateway, "POST", "/v1/chat/completions", {
        body: { model: MODEL, messages: [{ role: "user", content: "cohere hello" }], ...fields },
        headers: { ...headers(), authorization: "Bearer cohere-upstream-key" },
      });
      expect(answer.status, param).toBe(400);
      expect(answer.body.error).toMatchObject({ param });
      expect(answer.body.error.message).toContain("Cohere");
    }
    const after = await client().chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "cohere hello" }] });
    expect(after.choices[0]?.message.content).toBe("Hello from Cohere!");
  });
});
