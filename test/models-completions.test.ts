import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { call, openaiClient, startGateway, startUpstream, storedLog, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { gatewayContractProblems, openaiContractProblems } from "./support/contract.ts";
import { startRecordingUpstream, type RecordingUpstream } from "./support/recording-upstream.ts";
import priceData from "../src/providers/prices.json" with { type: "json" };

/** Models (the upstream's, or the gateway's catalogue with no provider) and legacy completions. */

let gateway: RunningGateway;
let upstream: LLMock;
let recorder: RecordingUpstream;

const completion = (text: string) => ({ id: "cmpl-1", object: "text_completion", created: 1, model: "gpt-3.5-turbo-instruct", choices: [{ index: 0, text, finish_reason: "stop", logprobs: null }] });

beforeAll(async () => {
  upstream = await startUpstream();
  recorder = await startRecordingUpstream((request) => {
    if (request.method === "GET") return { id: decodeURIComponent(request.path.split("/").pop()!), object: "model", created: 1, owned_by: "org" };
    const body = JSON.parse(request.body.toString() || "{}");
    if (!body.stream) return { ...completion("plain answer"), usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } };
    const chunks = ["streamed ", "answer"].map((text) => `data: ${JSON.stringify(completion(text))}\n\n`);
    const usage = `data: ${JSON.stringify({ ...completion(""), choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } })}\n\n`;
    return { headers: { "content-type": "text/event-stream" }, body: `${chunks.join("")}${usage}data: [DONE]\n\n` };
  });
  // Compiling the official schemas blocks for seconds: done before any connection is open, so
  // none is left idle long enough to be reset mid-test.
  for (const schema of ["CreateCompletionResponse", "ListModelsResponse", "Model"]) openaiContractProblems(schema, {});
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await recorder?.close();
});

describe("models", () => {
  it("with a provider, lists the upstream's models", async () => {
    const client = openaiClient(gateway, upstream);
    const { data: models, response } = await client.models.list().withResponse();
    expect(models.data.length).toBeGreaterThan(0);
    expect(models.data.every((model) => model.owned_by === "aimock")).toBe(true);
    expect(openaiContractProblems("ListModelsResponse", { object: "list", data: models.data })).toEqual([]);
    expect(await storedLog(gateway, response.headers.get("x-gateway-log-id")!)).toMatchObject({ route: "listModels", path: "/v1/models", provider: "openai", status: 200 });
  });

  it("retrieves one model from the upstream, logged as retrieveModel", async () => {
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: UPSTREAM_KEY, maxRetries: 0, defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": recorder.url } });
    const { data: model, response } = await client.models.retrieve("ft:gpt-4o-mini:org::abc").withResponse();
    expect(model).toEqual({ id: "ft:gpt-4o-mini:org::abc", object: "model", created: 1, owned_by: "org" });
    expect(openaiContractProblems("Model", model)).toEqual([]);
    expect(recorder.received.at(-1)).toMatchObject({ method: "GET", path: "/v1/models/ft:gpt-4o-mini:org::abc" });
    expect(await storedLog(gateway, response.headers.get("x-gateway-log-id")!)).toMatchObject({ route: "retrieveModel", provider: "openai", status: 200 });
  });

  it("with no provider, answers the gateway's catalogue of @provider/model ids, without an upstream call", async () => {
    const before = upstream.getRequests().length;
    const listed = await call(gateway, "GET", "/v1/models");
    expect(listed.status).toBe(200);
    expect(gatewayContractProblems("listModels", 200, listed.body)).toEqual([]);
    expect(openaiContractProblems("ListModelsResponse", listed.body)).toEqual([]);
    const expected = Object.entries(priceData.providers).flatMap(([provider, models]) => Object.keys(models).map((model) => `@${provider}/${model}`));
    expect(listed.body.data.map((model: { id: string }) => model.id)).toEqual(expected);
    expect(listed.body.data).toContainEqual({ id: "@openai/gpt-4.1-mini", object: "model", created: Date.parse(`${priceData.as_of}T00:00:00Z`) / 1000, owned_by: "openai" });
    expect(upstream.getRequests().length).toBe(before);
    const record = await storedLog(gateway, listed.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "listModels", provider: null, status: 200 });
    // The catalogue still needs a gateway key.
    expect((await call(gateway, "GET", "/v1/models", { key: null })).status).toBe(401);
  });
});

describe("legacy completions", () => {
  const client = () => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: UPSTREAM_KEY, maxRetries: 0, defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-custom-host": recorder.url } });

  it("answers a plain completion, logged with its usage", async () => {
    const { data, response } = await client().completions.create({ model: "@openai/gpt-3.5-turbo-instruct", prompt: "say something", max_tokens: 5 }).withResponse();
    expect(data.choices[0]!.text).toBe("plain answer");
    expect(openaiContractProblems("CreateCompletionResponse", data)).toEqual([]);
    const sent = recorder.received.at(-1)!;
    expect(sent).toMatchObject({ method: "POST", path: "/v1/completions" });
    expect(JSON.parse(sent.body.toString())).toEqual({ model: "gpt-3.5-turbo-instruct", prompt: "say something", max_tokens: 5 });
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "createCompletion", provider: "openai", model: "gpt-3.5-turbo-instruct", status: 200, promptTokens: 3, completionTokens: 2 });
  });

  it("relays a streamed completion event by event, ending in [DONE]", async () => {
    const stream = await client().completions.create({ model: "@openai/gpt-3.5-turbo-instruct", prompt: "say something", stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? "";
    expect(text).toBe("streamed answer");
    const raw = await call(gateway, "POST", "/v1/completions", {
      body: { model: "@openai/gpt-3.5-turbo-instruct", prompt: "again", stream: true },
      headers: { "x-gateway-custom-host": recorder.url, authorization: `Bearer ${UPSTREAM_KEY}` },
    });
    expect(raw.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(raw.body.trimEnd().endsWith("data: [DONE]")).toBe(true);
    const record = await storedLog(gateway, raw.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "createCompletion", stream: true, provider: "openai", status: 200, totalTokens: 5 });
  });

  it("judges the prompt strings with input guardrails", async () => {
    const guardrail = await call(gateway, "POST", "/v1/guardrails", { body: { name: "no secrets", checks: [{ type: "contains", params: { words: ["password"], operator: "none" } }], action: { deny: true } } });
    expect(guardrail.status).toBe(201);
    const config = JSON.stringify({ provider: "openai", custom_host: recorder.url, input_guardrails: [guardrail.body.slug] });
    const sentBefore = recorder.received.length;
    const denied = await call(gateway, "POST", "/v1/completions", {
      body: { model: "gpt-3.5-turbo-instruct", prompt: ["fine", "my password is hunter2"] },
      headers: { "x-gateway-config": config, authorization: `Bearer ${UPSTREAM_KEY}` },
    });
    expect(denied.status).toBe(446);
    expect(recorder.received.length).toBe(sentBefore);
    const allowed = await call(gateway, "POST", "/v1/completions", {
      body: { model: "gpt-3.5-turbo-instruct", prompt: "nothing to hide" },
      headers: { "x-gateway-config": config, authorization: `Bearer ${UPSTREAM_KEY}` },
    });
    expect(allowed.status).toBe(200);
    expect(allowed.body.choices[0].text).toBe("plain answer");
  });

  it("judges the choices' text with output guardrails, plain and streamed", async () => {
    const guardrail = await call(gateway, "POST", "/v1/guardrails", { body: { name: "no answers", checks: [{ type: "contains", params: { words: ["answer"], operator: "none" } }], action: { deny: true } } });
    expect(guardrail.status).toBe(201);
    const headers = { "x-gateway-config": JSON.stringify({ provider: "openai", custom_host: recorder.url, output_guardrails: [guardrail.body.slug] }), authorization: `Bearer ${UPSTREAM_KEY}` };
    const plain = await call(gateway, "POST", "/v1/completions", { body: { model: "gpt-3.5-turbo-instruct", prompt: "hi" }, headers });
    expect(plain.status).toBe(446);
    const streamed = await call(gateway, "POST", "/v1/completions", { body: { model: "gpt-3.5-turbo-instruct", prompt: "hi", stream: true }, headers });
    expect(streamed.body).toContain("event: error");
    expect(streamed.body).not.toContain("data: [DONE]");
  });
});
