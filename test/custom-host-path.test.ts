import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startGateway, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startRecordingUpstream, type RecordingUpstream } from "./support/recording-upstream.ts";

/**
 * A custom host is a base URL the operation's path is appended to. Written with no path at all
 * (`http://127.0.0.1:11434`), where the provider's API lives under a base path, it is refused
 * with a 400 that says to add `/v1`, instead of reaching a server that answers 404.
 */
let gateway: RunningGateway;
let upstream: RecordingUpstream;
let origin: string;

beforeAll(async () => {
  upstream = await startRecordingUpstream(() => ({ id: "chatcmpl-1", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }] }));
  origin = new URL(upstream.url).origin;
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

function client(customHost: string, provider = "openai-compatible"): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: UPSTREAM_KEY,
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": provider, "x-gateway-custom-host": customHost },
  });
}

const chat = (openai: OpenAI) => openai.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hello" }] });

describe("a custom host's path", () => {
  it("is refused with a 400 naming the header and the fix when it has none, and nothing goes upstream", async () => {
    const before = upstream.received.length;
    for (const provider of ["openai-compatible", "openai", "ollama", "anthropic", "gemini"]) {
      const error = await chat(client(origin, provider)).catch((caught: unknown) => caught);
      expect(error, provider).toBeInstanceOf(OpenAI.BadRequestError);
      const body = (error as InstanceType<typeof OpenAI.BadRequestError>).error as { code: string; param: string; message: string; type: string };
      expect(body).toMatchObject({ code: "invalid_request", param: "x-gateway-custom-host", type: "invalid_request_error" });
      expect(body.message).toContain(`"${origin}/v1"`);
    }
    expect(upstream.received.length).toBe(before);
    // The gateway keeps serving: the same client with /v1 gets its answer.
    expect((await chat(client(`${origin}/v1`))).choices[0]!.message.content).toBe("hi");
  });

  it("sends to <host>/v1/chat/completions when written with /v1, and to the root when written with a final slash", async () => {
    await chat(client(`${origin}/v1`));
    expect(upstream.received.at(-1)!.path).toBe("/v1/chat/completions");
    await chat(client(`${origin}/`));
    expect(upstream.received.at(-1)!.path).toBe("/chat/completions");
  });

  it("is not needed where the provider's own base URL has none (Perplexity, Azure OpenAI, Bedrock)", async () => {
    await chat(client(origin, "perplexity"));
    expect(upstream.received.at(-1)!.path).toBe("/chat/completions");
    const azure = await call(gateway, "POST", "/v1/chat/completions", {
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] },
      headers: { "x-gateway-provider": "azure-openai", "x-gateway-custom-host": origin, "x-gateway-azure-deployment": "d", authorization: `Bearer ${UPSTREAM_KEY}` },
    });
    expect(azure.status, JSON.stringify(azure.body)).toBe(200);
    expect(upstream.received.at(-1)!.path).toMatch(/^\/openai\/deployments\/d\/chat\/completions\?api-version=/);
  });

  it("is refused the same way from a config, naming the config", async () => {
    const response = await call(gateway, "POST", "/v1/chat/completions", {
      body: { model: "m", messages: [{ role: "user", content: "hello" }] },
      headers: { "x-gateway-config": JSON.stringify({ provider: "openai-compatible", custom_host: origin }), authorization: `Bearer ${UPSTREAM_KEY}` },
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: "invalid_request", param: "x-gateway-config" });
    expect(response.body.error.message).toMatch(/has no path/);
  });
});
