import OpenAI from "openai";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startGateway, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startRecordingUpstream, type Answer, type ReceivedRequest, type RecordingUpstream } from "./support/recording-upstream.ts";

/**
 * The gateway as a transparent proxy, seen through the official `openai` client: what OpenAI's
 * own document accepts passes, what the upstream answers comes back whole (empty bodies, request
 * ids, versions, rate limits), and the client's headers the upstream honours arrive there, while
 * the gateway's own headers, cookies and framing never cross.
 */

let gateway: RunningGateway;
let upstream: RecordingUpstream;

/** Headers a real OpenAI answer carries, with some that must never reach the client. */
const OPENAI_ANSWER_HEADERS = {
  "content-type": "application/json",
  "x-request-id": "req_transparent_1",
  "openai-processing-ms": "42",
  "openai-version": "2020-10-01",
  "x-ratelimit-remaining-requests": "99",
  "x-ratelimit-reset-tokens": "6ms",
  "set-cookie": "__cf_bm=upstream-cookie; path=/",
  "x-gateway-provider": "not-the-gateway",
};

const completion = { id: "chatcmpl-1", object: "chat.completion", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, message: { role: "assistant", content: "hi", refusal: null }, finish_reason: "stop", logprobs: null }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } };
const response = { id: "resp_1", object: "response", created_at: 1, status: "completed", model: "gpt-4o-mini", output: [], usage: { input_tokens: 3, output_tokens: 1, total_tokens: 4 } };
const completionStream = [
  { id: "chatcmpl-2", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta: { role: "assistant", content: "streamed" }, finish_reason: null }] },
  { id: "chatcmpl-2", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
  { id: "chatcmpl-2", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } },
]
  .map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
  .join("") + "data: [DONE]\n\n";
const anthropicMessage = { id: "msg_1", type: "message", role: "assistant", model: "claude-3-5-haiku-latest", content: [{ type: "text", text: "hi" }], stop_reason: "end_turn", usage: { input_tokens: 3, output_tokens: 1 } };

function answer(request: ReceivedRequest): Answer {
  const path = request.path.split("?")[0]!;
  const json = (body: unknown, headers: Record<string, string> = {}): Answer => ({ body: JSON.stringify(body), headers: { ...OPENAI_ANSWER_HEADERS, ...headers } });
  if (path === "/v1/chat/completions" && JSON.parse(String(request.body)).stream === true) return { headers: { "content-type": "text/event-stream" }, body: completionStream };
  if (path === "/v1/chat/completions") return json(completion);
  if (path === "/v1/messages") return json(anthropicMessage, { "request-id": "req_anthropic_1", "anthropic-ratelimit-requests-remaining": "49", "anthropic-ratelimit-tokens-reset": "2026-01-01T00:00:00Z" });
  if (path === "/v1/responses") return json(response);
  if (path === "/v1/images/generations") return json({ created: 1, data: [{ url: "https://example.com/a.png" }] });
  // OpenAI answers a deleted response with an empty 200; a delete elsewhere may be a 204.
  if (request.method === "DELETE" && path === "/v1/responses/resp_1") return { status: 200, headers: { "content-type": "application/json", "x-request-id": "req_deleted" }, body: "" };
  if (request.method === "DELETE" && path === "/v1/files/file_1") return { status: 204, headers: { "x-request-id": "req_no_content" }, body: "" };
  if (request.method === "GET") return json({ object: "list", data: [], first_id: null, last_id: null, has_more: false });
  return { status: 404, headers: { "content-type": "application/json" }, body: JSON.stringify({ error: { message: "no such path", type: "invalid_request_error", param: null, code: null } }) };
}

beforeAll(async () => {
  upstream = await startRecordingUpstream(answer);
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

function client(headers: Record<string, string> = {}, options: { organization?: string; project?: string } = {}): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: UPSTREAM_KEY,
    maxRetries: 0,
    ...options,
    defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": upstream.url, ...headers },
  });
}

const last = (): ReceivedRequest => upstream.received.at(-1)!;

/** A POST with no Accept header at all (fetch would add `*\/*`), read as text. */
function postWithoutAccept(path: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(`${gateway.url}${path}`, { method: "POST", headers: { ...headers, "content-type": "application/json" } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    sent.on("error", reject);
    sent.end(JSON.stringify(body));
  });
}

describe("requests OpenAI's document accepts pass through the gateway", () => {
  it("takes max_completion_tokens and max_tokens of 0, which OpenAI's schema allows", async () => {
    await client().chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], max_completion_tokens: 0 });
    expect(JSON.parse(last().body.toString())).toMatchObject({ max_completion_tokens: 0 });
    await client().chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], max_tokens: 0 });
    expect(JSON.parse(last().body.toString())).toMatchObject({ max_tokens: 0 });
  });

  it("takes a Responses body without model: empty, or with a stored prompt that names it", async () => {
    const empty = await client().responses.create({});
    expect(empty.id).toBe("resp_1");
    expect(JSON.parse(last().body.toString())).toEqual({});
    await client().responses.create({ prompt: { id: "pmpt_123" } });
    expect(JSON.parse(last().body.toString())).toEqual({ prompt: { id: "pmpt_123" } });
  });

  it("takes an image generation without model, or with model null", async () => {
    await client().images.generate({ prompt: "a lighthouse" });
    expect(JSON.parse(last().body.toString())).toEqual({ prompt: "a lighthouse" });
    await client().images.generate({ prompt: "a lighthouse", model: null });
    expect(JSON.parse(last().body.toString())).toEqual({ prompt: "a lighthouse", model: null });
  });

  it("passes limit=0 on every list, for the upstream to judge", async () => {
    const openai = client();
    const lists: Array<[string, () => Promise<unknown>]> = [
      ["/v1/files", () => openai.files.list({ limit: 0 })],
      ["/v1/batches", () => openai.batches.list({ limit: 0 })],
      ["/v1/fine_tuning/jobs", () => openai.fineTuning.jobs.list({ limit: 0 })],
      ["/v1/fine_tuning/jobs/ftjob_1/events", () => openai.fineTuning.jobs.listEvents("ftjob_1", { limit: 0 })],
      ["/v1/fine_tuning/jobs/ftjob_1/checkpoints", () => openai.fineTuning.jobs.checkpoints.list("ftjob_1", { limit: 0 })],
      ["/v1/vector_stores", () => openai.vectorStores.list({ limit: 0 })],
      ["/v1/vector_stores/vs_1/files", () => openai.vectorStores.files.list("vs_1", { limit: 0 })],
      ["/v1/vector_stores/vs_1/file_batches/vsfb_1/files", () => openai.vectorStores.fileBatches.listFiles("vsfb_1", { vector_store_id: "vs_1", limit: 0 })],
      ["/v1/responses/resp_1/input_items", () => openai.responses.inputItems.list("resp_1", { limit: 0 })],
      ["/v1/videos", () => openai.videos.list({ limit: 0 })],
    ];
    for (const [path, list] of lists) {
      await list();
      expect(last().path, path).toBe(`${path}?limit=0`);
    }
  });
});

describe("answers come back whole", () => {
  it("relays DELETE /v1/responses/{id}'s empty 200 as an empty 200", async () => {
    await expect(client().responses.delete("resp_1")).resolves.toBeUndefined();
    const raw = await call(gateway, "DELETE", "/v1/responses/resp_1", { headers: { "x-gateway-provider": "openai", "x-gateway-custom-host": upstream.url, authorization: `Bearer ${UPSTREAM_KEY}` } });
    expect(raw.status).toBe(200);
    expect(raw.body).toBe("");
    expect(raw.headers.get("x-request-id")).toBe("req_deleted");
  });

  it("relays a 204 as a 204 without a body", async () => {
    const raw = await call(gateway, "DELETE", "/v1/files/file_1", { headers: { "x-gateway-provider": "openai", "x-gateway-custom-host": upstream.url, authorization: `Bearer ${UPSTREAM_KEY}` } });
    expect(raw.status).toBe(204);
    expect(raw.body).toBe("");
    expect(raw.headers.get("x-request-id")).toBe("req_no_content");
  });

  it("passes back the upstream's request id, processing time, version and rate limits, so the SDK's _request_id is set", async () => {
    const created = await client().chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    expect(created._request_id).toBe("req_transparent_1");
    const { response: answered, request_id } = await client().chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }).withResponse();
    expect(request_id).toBe("req_transparent_1");
    expect(answered.headers.get("openai-processing-ms")).toBe("42");
    expect(answered.headers.get("openai-version")).toBe("2020-10-01");
    expect(answered.headers.get("x-ratelimit-remaining-requests")).toBe("99");
    expect(answered.headers.get("x-ratelimit-reset-tokens")).toBe("6ms");
    // Never the upstream's cookies, nor its claim to be the gateway.
    expect(answered.headers.get("set-cookie")).toBeNull();
    expect(answered.headers.get("x-gateway-provider")).toBe("openai");
  });

  it("passes back a translated provider's own headers: Anthropic's request id and anthropic-ratelimit-*", async () => {
    const { data, response: answered } = await client({ "x-gateway-provider": "anthropic" })
      .chat.completions.create({ model: "claude-3-5-haiku-latest", messages: [{ role: "user", content: "hi" }], max_tokens: 16 })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe("hi");
    expect(last().path).toBe("/v1/messages");
    expect(answered.headers.get("request-id")).toBe("req_anthropic_1");
    expect(answered.headers.get("anthropic-ratelimit-requests-remaining")).toBe("49");
    expect(answered.headers.get("anthropic-ratelimit-tokens-reset")).toBe("2026-01-01T00:00:00Z");
  });
});

describe("the client's headers the upstream honours are forwarded", () => {
  it("forwards Idempotency-Key, X-Client-Request-Id, User-Agent (with the gateway appended), Accept, OpenAI-Organization and OpenAI-Project", async () => {
    const openai = client({ "X-Client-Request-Id": "creq-1", cookie: "session=client-cookie", "proxy-authorization": "Basic c2VjcmV0" }, { organization: "org-client", project: "proj_client" });
    await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }, { headers: { "Idempotency-Key": "idem-1" } });
    const { headers } = last();
    expect(headers["idempotency-key"]).toBe("idem-1");
    expect(headers["x-client-request-id"]).toBe("creq-1");
    expect(headers["user-agent"]).toMatch(/^OpenAI\/JS .* ai-gateway\/\S+$/);
    expect(headers.accept).toBe("application/json");
    expect(headers["openai-organization"]).toBe("org-client");
    expect(headers["openai-project"]).toBe("proj_client");
    expect(headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    // Never the gateway's own headers, the client's cookies or hop-by-hop credentials.
    expect(Object.keys(headers).filter((name) => name.startsWith("x-gateway-"))).toEqual([]);
    expect(headers.cookie).toBeUndefined();
    expect(headers["proxy-authorization"]).toBeUndefined();
  });

  it("forwards the client's own Accept on chat, plain and streamed, and still reads the answer whatever it names", async () => {
    const plain = await client().chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }, { headers: { Accept: "*/*" } });
    expect(last().headers.accept).toBe("*/*");
    expect(plain.choices[0]!.message.content).toBe("hi");
    // Named for a stream while asking for none: the upstream answers JSON, which the gateway reads as such.
    const named = await client().chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }, { headers: { Accept: "text/event-stream" } });
    expect(last().headers.accept).toBe("text/event-stream");
    expect(named.usage?.total_tokens).toBe(4);
    const stream = await client().chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], stream: true }, { headers: { Accept: "application/json" } });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(last().headers.accept).toBe("application/json");
    expect(text).toBe("streamed");
  });

  it("forwards it on other operations alike (an image generation's JSON body, a list's none)", async () => {
    const headers = { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": upstream.url, authorization: `Bearer ${UPSTREAM_KEY}`, accept: "application/x-ndjson, */*;q=0.1" };
    await call(gateway, "POST", "/v1/images/generations", { body: { prompt: "a cat" }, headers });
    expect(last().headers.accept).toBe("application/x-ndjson, */*;q=0.1");
    await call(gateway, "GET", "/v1/files", { headers });
    expect(last().headers.accept).toBe("application/x-ndjson, */*;q=0.1");
  });

  it("asks for JSON or an event stream by what the body asks when the client names no type", async () => {
    const headers = { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": upstream.url, authorization: `Bearer ${UPSTREAM_KEY}` };
    const plain = await postWithoutAccept("/v1/chat/completions", { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }, headers);
    expect(plain.status).toBe(200);
    expect(last().headers.accept).toBe("application/json");
    const streamed = await postWithoutAccept("/v1/chat/completions", { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], stream: true }, headers);
    expect(streamed.status).toBe(200);
    expect(streamed.body).toContain('"content":"streamed"');
    expect(last().headers.accept).toBe("text/event-stream");
  });

  it("sends a translated provider's request with the Accept its own format reads, whatever the client's", async () => {
    await client({ "x-gateway-provider": "anthropic" }).chat.completions.create({ model: "claude-3-5-haiku-latest", messages: [{ role: "user", content: "hi" }], max_tokens: 16 }, { headers: { Accept: "text/plain" } });
    expect(last().path).toBe("/v1/messages");
    expect(last().headers.accept).toBe("application/json");
  });

  it("forwards them on routes whose body goes as it arrives too (a list, a delete)", async () => {
    await client({ "X-Client-Request-Id": "creq-2" }).files.list();
    expect(last().headers["x-client-request-id"]).toBe("creq-2");
    expect(last().headers["user-agent"]).toMatch(/ ai-gateway\/\S+$/);
  });

  it("lets the gateway's own organisation header win over OpenAI-Organization", async () => {
    await client({ "x-gateway-upstream-organization": "org-gateway" }, { organization: "org-client" }).chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    expect(last().headers["openai-organization"]).toBe("org-gateway");
  });
});
