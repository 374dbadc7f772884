import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { openaiContractProblems } from "./support/contract.ts";
import { startGateway, storedLog, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startRecordingUpstream, type RecordingUpstream } from "./support/recording-upstream.ts";
import { GEMINI_TEXT, PERPLEXITY_TEXT, webSearchAnswer } from "./support/web-search-answers.ts";

let gateway: RunningGateway;
let upstream: RecordingUpstream;

/** The events of a streamed Responses request, and its final response. */
async function streamedResponse(openai: OpenAI, body: { model: string; input: string; tools: OpenAI.Responses.Tool[] }) {
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const event of await openai.responses.create({ ...body, stream: true })) events.push(event);
  const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
  return { events, response: completed.response };
}

function client(headers: Record<string, string>): OpenAI {
  return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: UPSTREAM_KEY, maxRetries: 0, defaultHeaders: { "x-gateway-api-key": gateway.adminKey, ...headers } });
}

const openai = () => client({ "x-gateway-provider": "openai", "x-gateway-custom-host": upstream.url });
const anthropic = () => client({ "x-gateway-provider": "anthropic", "x-gateway-custom-host": upstream.url });
const gemini = () => client({ "x-gateway-provider": "gemini", "x-gateway-custom-host": upstream.url.replace(/\/v1$/, "/v1beta") });
const lastBody = () => JSON.parse(upstream.received.at(-1)!.body.toString("utf8")) as Record<string, any>;

beforeAll(async () => {
  upstream = await startRecordingUpstream(webSearchAnswer);
  gateway = await startGateway();
  openaiContractProblems("Response", {});
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const SEARCH = { type: "web_search_preview", search_context_size: "high", user_location: { type: "approximate", country: "FR", city: "Paris" } } as const;

describe("web search on providers that search themselves", () => {
  it("maps web_search_preview to Anthropic's web search tool and returns its citations and the search call", async () => {
    const data = await anthropic().responses.create({ model: "claude-sonnet-4-5", input: "How tall is the Eiffel Tower?", tools: [SEARCH] });
    expect(lastBody().tools).toEqual([{ type: "web_search_20250305", name: "web_search", max_uses: 5, user_location: { type: "approximate", country: "FR", city: "Paris" } }]);
    expect(openaiContractProblems("Response", data), JSON.stringify(data)).toEqual([]);
    expect(data.output.map((item) => item.type)).toEqual(["web_search_call", "message"]);
    expect(data.output[0]).toMatchObject({ status: "completed", action: { type: "search", query: "eiffel tower height" } });
    const text = (data.output[1] as OpenAI.Responses.ResponseOutputMessage).content[0] as OpenAI.Responses.ResponseOutputText;
    expect(text.text).toBe("Here is what I found. The tower is 330 m tall.");
    expect(text.annotations).toEqual([{ type: "url_citation", start_index: 22, end_index: 46, url: "https://example.org/eiffel", title: "Eiffel Tower" }]);
  });

  it("maps chat's web_search_options the same way for Anthropic, with url_citation annotations on the message", async () => {
    const completion = await anthropic().chat.completions.create({
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "How tall is the Eiffel Tower?" }],
      web_search_options: { search_context_size: "low" },
    });
    expect(lastBody().tools).toEqual([{ type: "web_search_20250305", name: "web_search", max_uses: 1 }]);
    expect(completion.choices[0]!.message.annotations).toEqual([
      { type: "url_citation", url_citation: { start_index: 22, end_index: 46, url: "https://example.org/eiffel", title: "Eiffel Tower" } },
    ]);
  });

  it("maps web_search_preview to Gemini's Google Search grounding and its supports to character-indexed citations", async () => {
    const data = await gemini().responses.create({ model: "gemini-2.5-flash", input: "What happened to prices?", tools: [SEARCH] });
    expect(lastBody().tools).toEqual([{ google_search: {} }]);
    expect(openaiContractProblems("Response", data), JSON.stringify(data)).toEqual([]);
    expect(data.output.map((item) => item.type)).toEqual(["web_search_call", "message"]);
    expect(data.output[0]).toMatchObject({ action: { type: "search", query: "cafe prices 2026" } });
    const text = (data.output[1] as OpenAI.Responses.ResponseOutputMessage).content[0] as OpenAI.Responses.ResponseOutputText;
    expect(text.annotations).toEqual([
      { type: "url_citation", start_index: 0, end_index: 17, url: "https://news.example/cafe", title: "news.example" },
      { type: "url_citation", start_index: 18, end_index: 28, url: "https://rent.example/", title: "rent.example" },
    ]);
    expect(GEMINI_TEXT.slice(0, 17)).toBe("Café prices rose.");
  });

  it("streams Anthropic's search as a web_search_call item before the text, and its citation as an annotation event", async () => {
    const { events, response } = await streamedResponse(anthropic(), { model: "claude-sonnet-4-5", input: "How tall is the Eiffel Tower?", tools: [SEARCH] });
    expect(events.at(-1)!.type).toBe("response.completed");
    const types = events.map((event) => event.type);
    expect(types.indexOf("response.web_search_call.completed")).toBeLessThan(types.indexOf("response.output_text.delta"));
    expect(types.filter((type) => type.startsWith("response.web_search_call."))).toEqual(["response.web_search_call.in_progress", "response.web_search_call.searching", "response.web_search_call.completed"]);
    const citation = { type: "url_citation", start_index: 22, end_index: 46, url: "https://example.org/eiffel", title: "Eiffel Tower" };
    expect(events.filter((event) => event.type === "response.output_text.annotation.added").map((event) => (event as { annotation: unknown }).annotation)).toEqual([citation]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(openaiContractProblems("Response", response), JSON.stringify(response)).toEqual([]);
    expect(response.output.map((item) => item.type)).toEqual(["web_search_call", "message"]);
    expect(response.output[0]).toMatchObject({ status: "completed", action: { type: "search", query: "eiffel tower height" } });
    const text = (response.output[1] as OpenAI.Responses.ResponseOutputMessage).content[0] as OpenAI.Responses.ResponseOutputText;
    expect([text.text, text.annotations]).toEqual(["Here is what I found. The tower is 330 m tall.", [citation]]);
  });

  it("streams Anthropic's citations to chat clients as an annotations delta over the cited text", async () => {
    const stream = await anthropic().chat.completions.create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "How tall?" }], web_search_options: {}, stream: true });
    let text = "";
    const annotations: unknown[] = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string; annotations?: unknown[] } | undefined;
      text += delta?.content ?? "";
      annotations.push(...(delta?.annotations ?? []));
    }
    expect(annotations).toEqual([{ type: "url_citation", url_citation: { start_index: 22, end_index: 46, url: "https://example.org/eiffel", title: "Eiffel Tower" } }]);
    expect(text.slice(22, 46)).toBe("The tower is 330 m tall.");
  });

  it("streams Gemini's grounding to chat clients as an annotations delta over the text streamed so far", async () => {
    const stream = await gemini().chat.completions.create({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "Prices?" }], web_search_options: {}, stream: true });
    let text = "";
    const annotations: unknown[] = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string; annotations?: unknown[] } | undefined;
      text += delta?.content ?? "";
      annotations.push(...(delta?.annotations ?? []));
    }
    expect(text).toBe(GEMINI_TEXT);
    expect(annotations).toEqual([
      { type: "url_citation", url_citation: { start_index: 0, end_index: 17, url: "https://news.example/cafe", title: "news.example" } },
      { type: "url_citation", url_citation: { start_index: 18, end_index: 28, url: "https://rent.example/", title: "rent.example" } },
    ]);
  });

  it("streams Gemini's grounding as a web_search_call item and character-indexed annotations over the whole text", async () => {
    const { events, response } = await streamedResponse(gemini(), { model: "gemini-2.5-flash", input: "What happened to prices?", tools: [SEARCH] });
    expect(events.filter((event) => event.type === "response.output_text.annotation.added")).toHaveLength(2);
    expect(openaiContractProblems("Response", response), JSON.stringify(response)).toEqual([]);
    expect(response.output.map((item) => item.type).sort()).toEqual(["message", "web_search_call"]);
    expect(response.output.find((item) => item.type === "web_search_call")).toMatchObject({ action: { type: "search", query: "cafe prices 2026" } });
    const message = response.output.find((item) => item.type === "message") as OpenAI.Responses.ResponseOutputMessage;
    const text = message.content[0] as OpenAI.Responses.ResponseOutputText;
    expect(text.text).toBe(GEMINI_TEXT);
    expect(text.annotations).toEqual([
      { type: "url_citation", start_index: 0, end_index: 17, url: "https://news.example/cafe", title: "news.example" },
      { type: "url_citation", start_index: 18, end_index: 28, url: "https://rent.example/", title: "rent.example" },
    ]);
  });

  it("prices the provider's searches with the tokens: Anthropic per search, Gemini per grounded answer, streamed or not", async () => {
    const costOf = async (logId: string | null) => (await storedLog(gateway, logId!)).costUsd;
    const plain = await anthropic().responses.create({ model: "claude-sonnet-4-5", input: "How tall?", tools: [SEARCH] }).withResponse();
    expect(plain.data.usage).toMatchObject({ server_tool_use: { web_search_requests: 1 } });
    // 900 × $3/M + 40 × $15/M, and one search at $10 per 1,000.
    expect(await costOf(plain.response.headers.get("x-gateway-log-id"))).toBe(0.0133);
    const streamed = await anthropic().responses.create({ model: "claude-sonnet-4-5", input: "How tall?", tools: [SEARCH], stream: true }).withResponse();
    for await (const _event of streamed.data);
    expect(await costOf(streamed.response.headers.get("x-gateway-log-id"))).toBe(0.0133);
    // 50 × $0.30/M + 12 × $2.50/M, and one grounded answer at $35 per 1,000.
    const grounded = await gemini().chat.completions.create({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "Prices?" }], web_search_options: {}, stream: true }).withResponse();
    for await (const _chunk of grounded.data);
    expect(await costOf(grounded.response.headers.get("x-gateway-log-id"))).toBe(0.035045);
  });

  it.each([false, true])("logs a request that searched twice at its tokens plus two searches, with the count in the entry (stream: %s)", async (stream) => {
    const costs: Array<[string, number | null, number]> = [];
    const logged = async (name: string, logId: string | null) => {
      const record = await storedLog(gateway, logId!);
      costs.push([name, record.costUsd, record.webSearches]);
      return record;
    };
    // OpenAI reports no count: its two web_search_call items are two calls at $10 per 1,000.
    const searched = await openai().responses.create({ model: "gpt-5", input: "How tall?", tools: [{ type: "web_search" }], stream }).withResponse();
    let final: OpenAI.Responses.Response;
    if (stream) {
      const events: OpenAI.Responses.ResponseStreamEvent[] = [];
      for await (const event of searched.data as AsyncIterable<OpenAI.Responses.ResponseStreamEvent>) events.push(event);
      expect(events.filter((event) => event.type.startsWith("response.web_search_call.")).map((event) => event.type)).toEqual([
        "response.web_search_call.in_progress", "response.web_search_call.searching", "response.web_search_call.completed",
        "response.web_search_call.in_progress", "response.web_search_call.searching", "response.web_search_call.completed",
      ]);
      final = (events.at(-1) as OpenAI.Responses.ResponseCompletedEvent).response;
    } else {
      final = searched.data as OpenAI.Responses.Response;
    }
    expect(final.output.filter((item) => item.type === "web_search_call")).toHaveLength(2);
    const openaiRecord = await logged("openai", searched.response.headers.get("x-gateway-log-id"));
    // 1,000 × $1.25/M + 100 × $10/M, and two calls at $10 per 1,000.
    expect(openaiRecord.costUsd).toBe(0.00225 + 2 * 0.01);
    // Anthropic counts its searches in usage: 900 × $3/M + 40 × $15/M, and two searches at $10 per 1,000.
    const twice = anthropic().responses.create({ model: "claude-sonnet-4-5", input: "search twice", tools: [SEARCH], stream }).withResponse();
    const answered = await twice;
    if (stream) for await (const _event of answered.data as AsyncIterable<unknown>);
    await logged("anthropic", answered.response.headers.get("x-gateway-log-id"));
    expect(costs).toEqual([
      ["openai", 0.02225, 2],
      ["anthropic", 0.0033 + 0.02, 2],
    ]);
    // The entry shows the count beside the tokens.
    const view = await fetch(`${gateway.url}/v1/logs/${answered.response.headers.get("x-gateway-log-id")}`, { headers: { "x-gateway-api-key": gateway.adminKey } });
    expect(((await view.json()) as { usage: unknown }).usage).toMatchObject({ prompt_tokens: 900, completion_tokens: 40, web_searches: 2 });
  });

  it("gives Perplexity's numbered citations url_citation annotations over each marker, plain and streamed", async () => {
    const perplexity = client({ "x-gateway-provider": "perplexity", "x-gateway-custom-host": upstream.url });
    const first = PERPLEXITY_TEXT.indexOf("[1]");
    const second = PERPLEXITY_TEXT.indexOf("[2]");
    const expected = [
      { type: "url_citation", url_citation: { start_index: first, end_index: first + 3, url: "https://example.org/eiffel", title: "Eiffel Tower" } },
      { type: "url_citation", url_citation: { start_index: second, end_index: second + 3, url: "https://example.org/history", title: "Tower history" } },
    ];
    const plain = await perplexity.chat.completions.create({ model: "sonar", messages: [{ role: "user", content: "How tall?" }] });
    expect(plain.choices[0]!.message.content).toBe(PERPLEXITY_TEXT);
    expect(plain.choices[0]!.message.annotations).toEqual(expected);
    // The provider's own fields pass as they are.
    expect((plain as unknown as { search_results: unknown[] }).search_results).toHaveLength(2);
    const stream = await perplexity.chat.completions.create({ model: "sonar", messages: [{ role: "user", content: "How tall?" }], stream: true });
    let text = "";
    const annotations: Array<{ chunk: number; annotation: unknown }> = [];
    let index = 0;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string; annotations?: unknown[] } | undefined;
      text += delta?.content ?? "";
      for (const annotation of delta?.annotations ?? []) annotations.push({ chunk: index, annotation });
      index += 1;
    }
    expect(text).toBe(PERPLEXITY_TEXT);
    // Each annotation comes with the chunk that closes its marker: "[1]" is cut between the first two.
    expect(annotations).toEqual([
      { chunk: 1, annotation: expected[0] },
      { chunk: 2, annotation: expected[1] },
    ]);
  });

  it("refuses web search on Bedrock, which has none, naming the tool and the provider", async () => {
    const headers = {
      "x-gateway-provider": "bedrock",
      "x-gateway-custom-host": upstream.url,
      "x-gateway-aws-access-key-id": "AKIAIOSFODNN7EXAMPLE",
      "x-gateway-aws-secret-access-key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY",
      "x-gateway-aws-region": "us-east-1",
    };
    const before = upstream.received.length;
    const refused = await client(headers)
      .responses.create({ model: "anthropic.claude-3-5-haiku-20241022-v1:0", input: "search", tools: [SEARCH] })
      .catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect([(refused as InstanceType<typeof OpenAI.APIError>).status, (refused as InstanceType<typeof OpenAI.APIError>).param]).toEqual([400, "tools.0"]);
    expect((refused as Error).message).toMatch(/web_search_preview.*Bedrock/);
    const chat = await client(headers)
      .chat.completions.create({ model: "anthropic.claude-3-5-haiku-20241022-v1:0", messages: [{ role: "user", content: "search" }], web_search_options: {} })
      .catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>);
    expect([(chat as InstanceType<typeof OpenAI.APIError>).status, (chat as InstanceType<typeof OpenAI.APIError>).param]).toEqual([400, "web_search_options"]);
    expect(upstream.received.length).toBe(before);
  });
});
