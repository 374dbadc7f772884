import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { call, openaiClient, startGateway, startUpstream, storedLog, type RunningGateway } from "./support/harness.ts";

let gateway: RunningGateway;
let upstream: LLMock;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("price me", { content: "Priced.", usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 } });
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
});

describe("a request without a cost says why", () => {
  it("logs the tokens of a model with no price, cost null, and the reason; a priced one has no note", async () => {
    const client = openaiClient(gateway, upstream);
    const unknown = await client.chat.completions.create({ model: "model-nobody-prices", messages: [{ role: "user", content: "price me" }] }).withResponse();
    const unpriced = await storedLog(gateway, unknown.response.headers.get("x-gateway-log-id")!);
    expect(unpriced).toMatchObject({ promptTokens: 10, completionTokens: 2, costUsd: null, costNote: "no price for openai/model-nobody-prices in the price table" });
    const view = await call(gateway, "GET", `/v1/logs/${unknown.response.headers.get("x-gateway-log-id")}`);
    expect(view.body).toMatchObject({ cost_usd: null, cost_note: "no price for openai/model-nobody-prices in the price table" });

    const known = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "price me" }] }).withResponse();
    const priced = await storedLog(gateway, known.response.headers.get("x-gateway-log-id")!);
    expect(priced.costUsd).toBeGreaterThan(0);
    expect(priced.costNote).toBeNull();
  });
});
