import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { computeCostUsd } from "../src/operation/cost.ts";
import { gatewayContractProblems } from "./support/contract.ts";
import { call, openaiClient, startGateway, startUpstream, UPSTREAM_KEY, storedLog, type RunningGateway } from "./support/harness.ts";

let gateway: RunningGateway;
let upstream: LLMock;
/** An upstream that reports embedding usage, which aimock leaves at zero; it records what it got. */
let counting: Server;
let countingUrl: string;
const countingRequests: Array<{ path: string; authorization: string | undefined; body: any }> = [];

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onEmbedding("the quick brown fox", { embedding: [0.1, 0.2, 0.3] });
  counting = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => (text += chunk.toString()));
    request.on("end", () => {
      const body = JSON.parse(text);
      countingRequests.push({ path: request.url ?? "", authorization: request.headers.authorization, body });
      const inputs: unknown[] = Array.isArray(body.input) ? body.input : [body.input];
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({
        object: "list",
        data: inputs.map((_, index) => ({ object: "embedding", index, embedding: [0.5, 0.25] })),
        model: `${body.model}-v2`,
        usage: { prompt_tokens: 1_000_000, total_tokens: 1_000_000 },
      }));
    });
  });
  await new Promise<void>((resolve) => counting.listen(0, "127.0.0.1", resolve));
  countingUrl = `http://127.0.0.1:${(counting.address() as AddressInfo).port}/v1`;
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await new Promise((resolve) => counting?.close(resolve));
});

describe("embeddings through the official openai client", () => {
  it("proxies an embedding to aimock, answers in the documented shape and logs the operation", async () => {
    const client = openaiClient(gateway, upstream, { "x-gateway-metadata": JSON.stringify({ team: "search" }) });
    const { data, response } = await client.embeddings
      .create({ model: "text-embedding-3-small", input: "the quick brown fox", user: "end-user-3", encoding_format: "float" })
      .withResponse();
    expect(data.object).toBe("list");
    expect(data.data[0]?.embedding).toEqual([0.1, 0.2, 0.3]);
    expect(response.headers.get("x-gateway-provider")).toBe("openai");

    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({
      route: "createEmbedding",
      path: "/v1/embeddings",
      provider: "openai",
      model: "text-embedding-3-small",
      status: 200,
      success: true,
      stream: false,
      user: "end-user-3",
      metadata: { team: "search" },
    });
    expect(JSON.parse(record.requestBody!)).toMatchObject({ model: "text-embedding-3-small", input: "the quick brown fox" });
    expect(JSON.parse(record.responseBody!).data[0].embedding).toEqual([0.1, 0.2, 0.3]);
  });

  it("logs the answer's usage and prices it as the served model, the @provider prefix stripped upstream", async () => {
    const client = new OpenAI({
      baseURL: `${gateway.url}/v1`,
      apiKey: UPSTREAM_KEY,
      maxRetries: 0,
      defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-custom-host": countingUrl },
    });
    const { data, response } = await client.embeddings.create({ model: "@openai/text-embedding-3-small", input: ["a", "b"] }).withResponse();
    expect(data.data).toHaveLength(2);
    expect(countingRequests.at(-1)).toMatchObject({ path: "/v1/embeddings", authorization: `Bearer ${UPSTREAM_KEY}`, body: { model: "text-embedding-3-small", input: ["a", "b"] } });

    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ provider: "openai", model: "text-embedding-3-small", promptTokens: 1_000_000, completionTokens: 0, totalTokens: 1_000_000 });
    const expected = computeCostUsd("openai", "text-embedding-3-small-v2", { promptTokens: 1_000_000, completionTokens: 0, totalTokens: 1_000_000, cachedTokens: 0, reasoningTokens: 0 });
    // One million input tokens of text-embedding-3-small cost $0.02 in the price table.
    expect(expected).toBeCloseTo(0.02, 10);
    expect(record.costUsd).toBeCloseTo(0.02, 10);
    expect(record.attempts).toEqual([expect.objectContaining({ target: 0, provider: "openai", model: "text-embedding-3-small", status: 200, errorCode: null })]);
  });

  it("refuses a malformed body with 400 naming the field, and keeps serving", async () => {
    const missing = await call(gateway, "POST", "/v1/embeddings", { body: { model: "text-embedding-3-small" }, headers: { "x-gateway-provider": "openai", "x-gateway-custom-host": countingUrl } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: "invalid_request", param: "input" });
    expect(gatewayContractProblems("createEmbedding", missing.status, missing.body)).toEqual([]);
    const empty = await call(gateway, "POST", "/v1/embeddings", { body: { model: "text-embedding-3-small", input: [] }, headers: { "x-gateway-provider": "openai", "x-gateway-custom-host": countingUrl } });
    expect(empty.status).toBe(400);
    const ok = await call(gateway, "POST", "/v1/embeddings", { body: { model: "text-embedding-3-small", input: "x" }, headers: { "x-gateway-provider": "openai", "x-gateway-custom-host": countingUrl } });
    expect(ok.status).toBe(200);
    expect(gatewayContractProblems("createEmbedding", ok.status, ok.body)).toEqual([]);
  });

  it("runs input guardrails on the strings to embed, and refuses output guardrails it cannot judge", async () => {
    const guardrail = await call(gateway, "POST", "/v1/guardrails", {
      body: { name: "no secrets", checks: [{ type: "contains", params: { words: ["password"], operator: "none" } }], action: { deny: true } },
    });
    expect(guardrail.status).toBe(201);
    const headers = { "x-gateway-provider": "openai", "x-gateway-custom-host": countingUrl };
    const before = countingRequests.length;
    const denied = await call(gateway, "POST", "/v1/embeddings", {
      body: { model: "text-embedding-3-small", input: ["fine", "my password is hunter2"] },
      headers: { ...headers, "x-gateway-config": JSON.stringify({ input_guardrails: [guardrail.body.slug] }) },
    });
    expect(denied.status).toBe(446);
    expect(denied.body.hook_results.input[0]).toMatchObject({ guardrail: guardrail.body.slug, verdict: false });
    expect(countingRequests.length).toBe(before);

    const passed = await call(gateway, "POST", "/v1/embeddings", {
      body: { model: "text-embedding-3-small", input: "all fine" },
      headers: { ...headers, "x-gateway-config": JSON.stringify({ input_guardrails: [guardrail.body.slug] }) },
    });
    expect(passed.status).toBe(200);
    expect(passed.body.hook_results.input[0]).toMatchObject({ verdict: true });

    const refused = await call(gateway, "POST", "/v1/embeddings", {
      body: { model: "text-embedding-3-small", input: "all fine" },
      headers: { ...headers, "x-gateway-config": JSON.stringify({ output_guardrails: [guardrail.body.slug] }) },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "invalid_request", param: "x-gateway-config" });
    expect(refused.body.error.message).toContain("createEmbedding");
    expect(countingRequests.length).toBe(before + 1);
  });
});
