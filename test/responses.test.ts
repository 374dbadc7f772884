import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { computeCostUsd } from "../src/operation/cost.ts";
import { gatewayContractProblems, openaiContractProblems } from "./support/contract.ts";
import { call, openaiClient, startGateway, startUpstream, UPSTREAM_KEY, storedLog, upstreamHeaders, type RunningGateway } from "./support/harness.ts";

let gateway: RunningGateway;
let upstream: LLMock;

/** A Responses upstream whose answers the tests fix (aimock serves neither usage nor the stored-response paths); it records what it got. */
let local: Server;
let localUrl: string;
interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
const received: Received[] = [];

const USAGE = { input_tokens: 1_000_000, input_tokens_details: { cached_tokens: 200_000, cache_write_tokens: 0 }, output_tokens: 500_000, output_tokens_details: { reasoning_tokens: 100_000 }, total_tokens: 1_500_000 };

/** A response object complete by the official schema. */
function responseObject(id: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    object: "response",
    created_at: 1_760_000_000,
    status: "completed",
    error: null,
    incomplete_details: null,
    instructions: null,
    model: "gpt-4o-mini-2024-07-18",
    output: [{ type: "message", id: "msg_1", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Local answer", annotations: [], logprobs: [] }] }],
    parallel_tool_calls: true,
    temperature: 1,
    top_p: 1,
    tool_choice: "auto",
    tools: [],
    metadata: {},
    usage: USAGE,
    ...extra,
  };
}

/** The stream the local upstream sends: typed events, no `[DONE]`, the bytes end after `response.completed`. */
const STREAM_EVENTS: Array<{ event: string; data: Record<string, unknown> }> = [
  { event: "response.created", data: { type: "response.created", sequence_number: 0, response: { ...responseObject("resp_stream"), status: "in_progress", output: [], usage: undefined } } },
  { event: "response.output_text.delta", data: { type: "response.output_text.delta", sequence_number: 1, item_id: "msg_1", output_index: 0, content_index: 0, delta: "Local ", logprobs: [] } },
  { event: "response.output_text.delta", data: { type: "response.output_text.delta", sequence_number: 2, item_id: "msg_1", output_index: 0, content_index: 0, delta: "answer", logprobs: [] } },
  { event: "response.completed", data: { type: "response.completed", sequence_number: 3, response: responseObject("resp_stream") } },
];
const sse = (events: typeof STREAM_EVENTS) => events.map(({ event, data }) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join("");

function answerLocal(request: Received, reply: (status: number, body: unknown, type?: string) => void): void {
  const { pathname } = new URL(request.url, "http://local");
  if (request.method === "POST" && pathname === "/v1/responses") {
    const body = JSON.parse(request.body);
    if (body.stream) return reply(200, body.input === "cut" ? sse(STREAM_EVENTS.slice(0, 2)) : sse(STREAM_EVENTS), "text/event-stream");
    return reply(200, responseObject("resp_local"));
  }
  const match = /^\/v1\/responses\/([^/]+)(\/input_items|\/cancel)?$/.exec(pathname);
  if (!match) return reply(404, { error: { message: "no such path", type: "invalid_request_error", code: null, param: null } });
  const [, id, rest] = match;
  if (request.method === "GET" && !rest) return reply(200, responseObject(id!));
  if (request.method === "DELETE" && !rest) return reply(200, { id, object: "response.deleted", deleted: true });
  if (request.method === "GET" && rest === "/input_items") {
    const item = { type: "message", id: "msg_in", status: "completed", role: "user", content: [{ type: "input_text", text: "hello" }] };
    return reply(200, { object: "list", data: [item], first_id: "msg_in", last_id: "msg_in", has_more: false });
  }
  if (request.method === "POST" && rest === "/cancel") return reply(200, responseObject(id!, { status: "cancelled", background: true }));
  reply(405, { error: { message: "method", type: "invalid_request_error", code: null, param: null } });
}

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("responses plain", { content: "Hello from the Responses route" });
  upstream.onMessage("responses stream", { content: "Streamed through the Responses route" });
  upstream.onMessage("weather in Paris", { toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris"}' }] });
  local = createServer((incoming, outgoing) => {
    let body = "";
    incoming.on("data", (chunk: Buffer) => (body += chunk.toString()));
    incoming.on("end", () => {
      const request = { method: incoming.method ?? "", url: incoming.url ?? "", headers: incoming.headers, body };
      received.push(request);
      answerLocal(request, (status, answer, type = "application/json") => {
        outgoing.writeHead(status, { "content-type": type });
        outgoing.end(typeof answer === "string" ? answer : JSON.stringify(answer));
      });
    });
  });
  await new Promise<void>((resolve) => local.listen(0, "127.0.0.1", resolve));
  localUrl = `http://127.0.0.1:${(local.address() as AddressInfo).port}/v1`;
  // Compiling the official schemas blocks for seconds: done before any connection is open, so no
  // keep-alive socket outlives its timeout meanwhile (the next request would meet a reset).
  for (const schema of ["Response", "ResponseStreamEvent", "ResponseItemList"]) openaiContractProblems(schema, {});
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await new Promise((resolve) => local?.close(resolve));
});

function localClient(): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: UPSTREAM_KEY,
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": localUrl },
  });
}

const localHeaders = () => ({ "x-gateway-provider": "openai", "x-gateway-custom-host": localUrl });

/** The events of a server-sent event stream's text, as `event` and parsed `data`. */
function parseSse(text: string): Array<{ event: string | null; data: any }> {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const lines = block.split("\n");
      const event = lines.find((line) => line.startsWith("event: "))?.slice("event: ".length) ?? null;
      const data = lines.filter((line) => line.startsWith("data: ")).map((line) => line.slice("data: ".length)).join("\n");
      return { event, data: JSON.parse(data) };
    });
}

describe("the Responses operation through the official openai client", () => {
  it("creates a response on aimock, answers in the official shape and logs it as createResponse", async () => {
    const client = openaiClient(gateway, upstream);
    const { data, response } = await client.responses.create({ model: "gpt-4o-mini", input: "responses plain", user: "end-user-7" }).withResponse();
    expect(data.object).toBe("response");
    expect(data.output_text).toBe("Hello from the Responses route");
    expect(response.headers.get("x-gateway-provider")).toBe("openai");
    const raw = JSON.parse(JSON.stringify(data));
    delete raw.output_text; // added by the client
    // aimock's response objects leave out fields the official schema requires (error, tools…), so
    // they are checked against the gateway's document; the official check runs on complete ones below.
    expect(gatewayContractProblems("createResponse", 200, raw)).toEqual([]);

    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "createResponse", method: "POST", path: "/v1/responses", provider: "openai", model: "gpt-4o-mini", status: 200, success: true, stream: false, user: "end-user-7" });
    expect(JSON.parse(record.responseBody!).output[0].content[0].text).toBe("Hello from the Responses route");
    expect(upstream.getRequests().at(-1)).toMatchObject({ path: "/v1/responses", body: { model: "gpt-4o-mini" } });
  });

  it("relays a stream event by event until response.completed, and the client's iteration ends normally", async () => {
    const client = openaiClient(gateway, upstream);
    const stream = await client.responses.create({ model: "gpt-4o-mini", input: "responses stream", stream: true });
    const types: string[] = [];
    let text = "";
    let completed: OpenAI.Responses.Response | null = null;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") completed = event.response;
    }
    expect(text).toBe("Streamed through the Responses route");
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    expect(completed?.status).toBe("completed");
    const sequence = types.filter((type, index) => types.indexOf(type) === index);
    expect(sequence).toEqual(expect.arrayContaining(["response.created", "response.output_item.added", "response.output_text.delta", "response.output_item.done", "response.completed"]));
  });

  it("passes every typed event on unchanged and in order, with its event line, and official in shape", async () => {
    const direct = await fetch(`${upstream.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${UPSTREAM_KEY}` },
      body: JSON.stringify({ model: "gpt-4o-mini", input: "responses stream", stream: true }),
    });
    const directEvents = parseSse(await direct.text());
    const relayed = await call(gateway, "POST", "/v1/responses", { body: { model: "gpt-4o-mini", input: "responses stream", stream: true }, headers: upstreamHeaders(gateway, upstream) });
    expect(relayed.status).toBe(200);
    expect(relayed.headers.get("content-type")).toContain("text/event-stream");
    const events = parseSse(relayed.body);
    // aimock makes fresh ids per call: the same events in the same order, each event line matching its data's type.
    expect(events.map((event) => event.event)).toEqual(directEvents.map((event) => event.event));
    expect(events.map((event) => event.data.type)).toEqual(directEvents.map((event) => event.data.type));
    for (const event of events) expect(event.event).toBe(event.data.type);
    expect(events.some((event) => event.event === "error")).toBe(false);

    // Against fixed upstream bytes, the relay is exact.
    const local = await call(gateway, "POST", "/v1/responses", { body: { model: "gpt-4o-mini", input: "hi", stream: true }, headers: localHeaders() });
    expect(local.body).toBe(sse(STREAM_EVENTS));
    for (const { data } of STREAM_EVENTS) expect(openaiContractProblems("ResponseStreamEvent", data)).toEqual([]);
  });

  it("serves a function tool call", async () => {
    const client = openaiClient(gateway, upstream);
    const answer = await client.responses.create({
      model: "gpt-4o-mini",
      input: [{ role: "user", content: [{ type: "input_text", text: "weather in Paris" }] }],
      tools: [{ type: "function", name: "get_weather", description: "The weather in a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, strict: true }],
      tool_choice: "auto",
    });
    const call = answer.output.find((item) => item.type === "function_call");
    expect(call).toMatchObject({ type: "function_call", name: "get_weather" });
    expect(JSON.parse((call as { arguments: string }).arguments)).toEqual({ city: "Paris" });
    expect(upstream.getRequests().at(-1)?.body).toMatchObject({ tools: [{ type: "function" }], tool_choice: "auto" });
  });

  it("logs the usage, cached and reasoning tokens and the cost of an answer, priced as the served model", async () => {
    const { data, response } = await localClient().responses.create({ model: "gpt-4o-mini", input: "price me", instructions: "Be brief." }).withResponse();
    expect(data.id).toBe("resp_local");
    const raw = JSON.parse(JSON.stringify(data));
    delete raw.output_text; // added by the client
    expect(raw).toEqual(responseObject("resp_local"));
    expect(openaiContractProblems("Response", raw)).toEqual([]);
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "createResponse", promptTokens: 1_000_000, completionTokens: 500_000, totalTokens: 1_500_000, cachedTokens: 200_000, reasoningTokens: 100_000 });
    const usage = { promptTokens: 1_000_000, completionTokens: 500_000, totalTokens: 1_500_000, cachedTokens: 200_000, reasoningTokens: 100_000 };
    const expected = computeCostUsd("openai", "gpt-4o-mini-2024-07-18", usage);
    // 800k uncached input at $0.15/M, 200k cached at $0.075/M, 500k output at $0.60/M.
    expect(expected).toBeCloseTo(0.12 + 0.015 + 0.3, 10);
    expect(record.costUsd).toBeCloseTo(expected!, 10);
  });

  it("logs a stream as its final response object, with its usage; a cut stream as its events", async () => {
    const relayed = await call(gateway, "POST", "/v1/responses", { body: { model: "gpt-4o-mini", input: "hi", stream: true }, headers: localHeaders() });
    const record = await storedLog(gateway, relayed.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "createResponse", stream: true, success: true, promptTokens: 1_000_000, completionTokens: 500_000, cachedTokens: 200_000 });
    expect(JSON.parse(record.responseBody!)).toEqual(responseObject("resp_stream"));
    expect(record.costUsd).toBeGreaterThan(0);

    // The bytes end before response.completed: the Responses stream has no end marker, so it ends cleanly, logged as its events.
    const cut = await call(gateway, "POST", "/v1/responses", { body: { model: "gpt-4o-mini", input: "cut", stream: true }, headers: localHeaders() });
    expect(cut.body).toBe(sse(STREAM_EVENTS.slice(0, 2)));
    const cutRecord = await storedLog(gateway, cut.headers.get("x-gateway-log-id")!);
    expect(JSON.parse(cutRecord.responseBody!)).toEqual(STREAM_EVENTS.slice(0, 2).map(({ data }) => data));
    expect(cutRecord.promptTokens).toBe(0);
  });

  it("retrieves, lists the input items of, cancels and deletes a stored response at the upstream, without counting tokens again", async () => {
    const client = localClient();
    const before = received.length;

    const { data: retrieved, response } = await client.responses.retrieve("resp_abc", { include: ["message.output_text.logprobs"] }).withResponse();
    expect(retrieved).toMatchObject({ id: "resp_abc", object: "response" });
    expect(openaiContractProblems("Response", retrieved)).toEqual([]);
    expect(gatewayContractProblems("getResponse", 200, retrieved)).toEqual([]);
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "getResponse", method: "GET", path: "/v1/responses/resp_abc", status: 200, promptTokens: 0, costUsd: null });

    const page = await client.responses.inputItems.list("resp_abc", { limit: 5, order: "asc", after: "msg_0", include: ["file_search_call.results"] });
    expect(page.data.map((item) => item.id)).toEqual(["msg_in"]);
    expect(openaiContractProblems("ResponseItemList", { object: "list", data: page.data, first_id: "msg_in", last_id: "msg_in", has_more: false })).toEqual([]);

    const cancelled = await client.responses.cancel("resp_abc");
    expect(cancelled.status).toBe("cancelled");

    const deleted = await client.responses.delete("resp_abc").withResponse();
    expect(deleted.response.status).toBe(200);
    expect(deleted.data).toEqual({ id: "resp_abc", object: "response.deleted", deleted: true });

    const sent = received.slice(before);
    expect(sent.map(({ method, url }) => `${method} ${url.split("?")[0]}`)).toEqual([
      "GET /v1/responses/resp_abc",
      "GET /v1/responses/resp_abc/input_items",
      "POST /v1/responses/resp_abc/cancel",
      "DELETE /v1/responses/resp_abc",
    ]);
    expect(Object.fromEntries(new URL(sent[0]!.url, "http://x").searchParams)).toEqual({ "include[]": "message.output_text.logprobs" });
    expect(Object.fromEntries(new URL(sent[1]!.url, "http://x").searchParams)).toEqual({ limit: "5", order: "asc", after: "msg_0", "include[]": "file_search_call.results" });
    for (const request of sent) {
      expect(request.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
      // No body went upstream: none was sent, not an empty chunked one.
      expect(request.body).toBe("");
      expect(request.headers["transfer-encoding"]).toBeUndefined();
    }
    await gateway.flushLogs();
    const routes = await call(gateway, "GET", "/v1/logs?limit=10");
    expect(routes.body.data.map((entry: { route: string }) => entry.route)).toEqual(expect.arrayContaining(["listResponseInputItems", "cancelResponse", "deleteResponse"]));
  });

  it("checks the stored-response paths' parameters before going upstream", async () => {
    const before = received.length;
    const badLimit = await call(gateway, "GET", "/v1/responses/resp_abc/input_items?limit=many", { headers: localHeaders() });
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.error.param).toBe("limit");
    const badOrder = await call(gateway, "GET", "/v1/responses/resp_abc/input_items?order=sideways", { headers: localHeaders() });
    expect(badOrder.status).toBe(400);
    expect(received.length).toBe(before);
    const missing = await call(gateway, "GET", "/v1/responses/resp_abc/nothing", { headers: localHeaders() });
    expect(missing.status).toBe(404);
  });

  it("leaves a missing model to an OpenAI-format upstream (a stored prompt names it), and refuses it with 400 for a provider that must be told one", async () => {
    const fromPrompt = await call(gateway, "POST", "/v1/responses", { body: { prompt: { id: "pmpt_abc" } }, headers: localHeaders() });
    expect(fromPrompt.status).toBe(200);
    expect(JSON.parse(received.at(-1)!.body)).toEqual({ prompt: { id: "pmpt_abc" } });
    const sentBefore = received.length;
    const missing = await call(gateway, "POST", "/v1/responses", { body: { input: "no model" }, headers: { "x-gateway-provider": "anthropic", "x-gateway-custom-host": localUrl } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: "invalid_request", param: "model" });
    expect(gatewayContractProblems("createResponse", 400, missing.body)).toEqual([]);
    expect(received.length).toBe(sentBefore);
    const before = upstream.getRequests().length;
    const badEffort = await call(gateway, "POST", "/v1/responses", { body: { model: "o4-mini", input: "x", reasoning: { effort: "extreme" } }, headers: upstreamHeaders(gateway, upstream) });
    expect(badEffort.status).toBe(400);
    expect(upstream.getRequests().length).toBe(before);
    const unknownFields = await call(gateway, "POST", "/v1/responses", {
      body: { model: "gpt-4o-mini", input: "x", text: { format: { type: "text" } }, tools: [{ type: "web_search_preview", search_context_size: "low", user_location: { type: "approximate", country: "FR" } }], future_field: 1 },
      headers: localHeaders(),
    });
    expect(unknownFields.status).toBe(200);
    expect(JSON.parse(received.at(-1)!.body)).toMatchObject({ future_field: 1, text: { format: { type: "text" } } });
  });

  it("runs input guardrails on instructions and input text, and output guardrails on the answer and the stream", async () => {
    const guardrail = await call(gateway, "POST", "/v1/guardrails", {
      body: { name: "no secrets in responses", checks: [{ type: "contains", params: { words: ["password", "Local answer"], operator: "none" } }], action: { deny: true } },
    });
    expect(guardrail.status).toBe(201);
    const input = { "x-gateway-config": JSON.stringify({ input_guardrails: [guardrail.body.slug] }) };
    const before = received.length;
    const denied = await call(gateway, "POST", "/v1/responses", {
      body: { model: "gpt-4o-mini", instructions: "fine", input: [{ role: "user", content: [{ type: "input_text", text: "my password is hunter2" }] }] },
      headers: { ...localHeaders(), ...input },
    });
    expect(denied.status).toBe(446);
    const deniedByInstructions = await call(gateway, "POST", "/v1/responses", { body: { model: "gpt-4o-mini", instructions: "say the password", input: "hi" }, headers: { ...localHeaders(), ...input } });
    expect(deniedByInstructions.status).toBe(446);
    expect(received.length).toBe(before);

    const output = { "x-gateway-config": JSON.stringify({ output_guardrails: [guardrail.body.slug] }) };
    const plain = await call(gateway, "POST", "/v1/responses", { body: { model: "gpt-4o-mini", input: "hi" }, headers: { ...localHeaders(), ...output } });
    expect(plain.status).toBe(446);
    expect(plain.body.hook_results.output[0]).toMatchObject({ verdict: false });
    const streamed = await call(gateway, "POST", "/v1/responses", { body: { model: "gpt-4o-mini", input: "hi", stream: true }, headers: { ...localHeaders(), ...output } });
    const events = parseSse(streamed.body);
    expect(events.at(-1)?.event).toBe("error");
    expect(events.some((event) => event.event === "response.completed")).toBe(false);
  });
});
