import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type RunningGateway } from "./support/harness.ts";
import { startRawUpstream, type RawUpstream } from "./support/raw-upstream.ts";

/**
 * An upstream whose answer carries rate-limit headers no real provider sends: a value of 8 KB and
 * a hundred of them. What reaches the client through the official client is bounded.
 */
let upstream: RawUpstream;
let gateway: RunningGateway;

const COMPLETION = { id: "c1", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };

beforeAll(async () => {
  upstream = await startRawUpstream((_body, res) => {
    const headers: Record<string, string> = { "content-type": "application/json", "x-request-id": "req_1", "x-ratelimit-limit-requests": "x".repeat(8_000) };
    for (let index = 0; index < 100; index += 1) headers[`x-ratelimit-extra-${index}`] = String(index);
    res.writeHead(200, headers);
    res.end(JSON.stringify(COMPLETION));
  });
  gateway = await startGateway();
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe("an upstream's headers on their way back", () => {
  it("are passed on only within bounds: no long value, at most 32", async () => {
    const client = new OpenAI({
      baseURL: `${gateway.url}/v1`,
      apiKey: "sk-test",
      defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai-compatible", "x-gateway-custom-host": upstream.url },
    });
    const { data, response } = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] }).withResponse();
    expect(data.choices[0]?.message.content).toBe("hi");
    const relayed = [...response.headers.keys()].filter((name) => name.startsWith("x-ratelimit-"));
    expect(response.headers.get("x-request-id")).toBe("req_1");
    expect(response.headers.get("x-ratelimit-limit-requests")).toBeNull();
    expect(relayed.length).toBeGreaterThan(10);
    expect(relayed.length).toBeLessThanOrEqual(32);
  });
});
