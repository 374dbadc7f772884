import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { DEFAULT_WORKSPACE_ID } from "../src/control-plane/auth-context.ts";
import { call, openaiClient, startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";

/** Configs, virtual keys, guardrails and prompts on the request path, through the official client. */

const VK_SECRET = "sk-stored-upstream-key-4242";

let gateway: RunningGateway;
let upstream: LLMock;
/** Accepts only VK_SECRET: a 200 proves the virtual key's secret reached it. */
let guarded: LLMock;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("hello", { content: "Hello back", usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } });
  upstream.onMessage("forbidden", { content: "should never be reached" });
  upstream.onMessage("leak", { content: "my email is jane.doe@example.com" });
  upstream.onMessage("Translate", { content: "Bonjour le monde", usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 } });
  guarded = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent", auth: { apiKeys: [VK_SECRET] } });
  guarded.onMessage("hello", { content: "Hello from the stored key" });
  await guarded.start();
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await guarded?.stop();
});

async function create(path: string, body: unknown): Promise<any> {
  const created = await call(gateway, "POST", path, { body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

async function storedLog(logId: string | null) {
  await gateway.flushLogs();
  const record = await gateway.gateway.deps.store.logs.get(logId!, DEFAULT_WORKSPACE_ID);
  expect(record).toBeDefined();
  return record!;
}

/** A client that names no provider and no custom host: the gateway's control plane must supply them. */
function bareClient(headers: Record<string, string>, apiKey = "sk-client-placeholder"): OpenAI {
  return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey, maxRetries: 0, defaultHeaders: { "x-gateway-api-key": gateway.adminKey, ...headers } });
}

const ask = (client: OpenAI, content: string, model = "gpt-4o-mini") =>
  client.chat.completions.create({ model, messages: [{ role: "user", content }] }).withResponse();

describe("virtual keys on the request path", () => {
  let slug: string;

  beforeAll(async () => {
    const key = await create("/v1/virtual-keys", { name: "guarded openai", provider: "openai", key: VK_SECRET, custom_host: `${guarded.url}/v1` });
    slug = key.slug;
  });

  it("serves @slug/model with the stored, encrypted secret and logs the virtual key", async () => {
    const { data, response } = await ask(bareClient({}), "hello", `@${slug}/gpt-4o-mini`);
    expect(data.choices[0]?.message.content).toBe("Hello from the stored key");
    expect(guarded.getLastRequest()?.body).toMatchObject({ model: "gpt-4o-mini" });
    const record = await storedLog(response.headers.get("x-gateway-log-id"));
    expect(record.virtualKeyId).toBe((await gateway.gateway.deps.store.virtualKeys.getBySlug(DEFAULT_WORKSPACE_ID, slug))?.id);
    expect(JSON.stringify(record)).not.toContain(VK_SECRET);
    const served = await call(gateway, "GET", `/v1/logs?virtual_key_id=${record.virtualKeyId}`);
    expect(served.body.data.map((log: { id: string }) => log.id)).toContain(record.id);
    expect(served.body.data.every((log: { virtual_key_id: string }) => log.virtual_key_id === record.virtualKeyId)).toBe(true);
  });

  it("is selected by x-gateway-provider: @slug and by x-gateway-virtual-key too", async () => {
    const byProvider = await ask(bareClient({ "x-gateway-provider": `@${slug}` }), "hello");
    expect(byProvider.data.choices[0]?.message.content).toBe("Hello from the stored key");
    const byHeader = await ask(bareClient({ "x-gateway-virtual-key": slug }), "hello");
    expect(byHeader.data.choices[0]?.message.content).toBe("Hello from the stored key");
  });

  it("an unknown slug is a 400 naming where it came from", async () => {
    await expect(ask(bareClient({ "x-gateway-virtual-key": "vk-nope-00000000" }), "hello")).rejects.toMatchObject({
      status: 400,
      error: { param: "x-gateway-virtual-key" },
    });
  });

  it("stops working at once when deleted", async () => {
    const doomed = await create("/v1/virtual-keys", { name: "doomed", provider: "openai", key: VK_SECRET, custom_host: `${guarded.url}/v1` });
    const before = await ask(bareClient({ "x-gateway-virtual-key": doomed.slug }), "hello");
    expect(before.data.choices[0]?.message.content).toBe("Hello from the stored key");
    expect((await call(gateway, "DELETE", `/v1/virtual-keys/${doomed.slug}`)).status).toBe(200);
    await expect(ask(bareClient({ "x-gateway-virtual-key": doomed.slug }), "hello")).rejects.toMatchObject({ status: 400 });
  });
});

describe("configs on the request path", () => {
  it("a stored config with a denying input guardrail answers 446 with the check results, and never calls the upstream", async () => {
    const guardrail = await create("/v1/guardrails", {
      name: "no forbidden words",
      checks: [{ type: "contains", params: { words: ["forbidden"], operator: "none" } }],
      action: { deny: true },
    });
    const config = await create("/v1/configs", {
      name: "guarded",
      config: { provider: "openai", custom_host: `${upstream.url}/v1`, input_guardrails: [guardrail.slug] },
    });
    const client = bareClient({ "x-gateway-config": config.slug });
    const requestsBefore = upstream.getRequests().length;

    const denied = await ask(client, "this is forbidden").catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(OpenAI.APIError);
    const apiError = denied as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.status).toBe(446);
    expect(apiError.error).toMatchObject({ code: "guardrail_denied", type: "guardrail_error" });
    expect(upstream.getRequests().length).toBe(requestsBefore);

    const raw = await call(gateway, "POST", "/v1/chat/completions", {
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "this is forbidden" }] },
      headers: { "x-gateway-config": config.slug },
    });
    expect(raw.status).toBe(446);
    expect(raw.body.hook_results.input).toEqual([
      expect.objectContaining({ guardrail: guardrail.slug, stage: "input", verdict: false, deny: true, checks: [expect.objectContaining({ check: "contains", verdict: false })] }),
    ]);
    const record = await storedLog(raw.headers.get("x-gateway-log-id"));
    expect(record.status).toBe(446);
    expect(JSON.parse(record.guardrailResults!)[0]).toMatchObject({ guardrail: guardrail.slug, verdict: false });
    const shown = await call(gateway, "GET", `/v1/logs/${record.id}`);
    expect(shown.body.guardrail_results).toEqual(raw.body.hook_results.input);

    const passed = await ask(client, "hello");
    expect(passed.data.choices[0]?.message.content).toBe("Hello back");
    const hookResults = (passed.data as unknown as { hook_results: { input: Array<{ verdict: boolean }> } }).hook_results;
    expect(hookResults.input[0]?.verdict).toBe(true);
  });

  it("a failing guardrail without deny lets the request through and returns its results", async () => {
    const guardrail = await create("/v1/guardrails", {
      name: "flag pii",
      checks: [{ type: "pii", params: {} }],
      action: { deny: false },
    });
    const config = { provider: "openai", custom_host: `${upstream.url}/v1`, output_guardrails: [guardrail.slug] };
    const { data, response } = await ask(bareClient({ "x-gateway-config": JSON.stringify(config) }), "leak");
    expect(data.choices[0]?.message.content).toContain("jane.doe@example.com");
    const hookResults = (data as unknown as { hook_results: { output: Array<{ verdict: boolean; deny: boolean }> } }).hook_results;
    expect(hookResults.output).toEqual([expect.objectContaining({ verdict: false, deny: false })]);
    const record = await storedLog(response.headers.get("x-gateway-log-id"));
    expect(JSON.parse(record.guardrailResults!)[0]).toMatchObject({ stage: "output", verdict: false });
  });

  it("a denying output guardrail ends a stream with an error event instead of [DONE]", async () => {
    const guardrail = await create("/v1/guardrails", { name: "no pii out", checks: [{ type: "pii", params: {} }], action: { deny: true } });
    const config = JSON.stringify({ provider: "openai", custom_host: `${upstream.url}/v1`, output_guardrails: [guardrail.slug] });
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gateway-api-key": gateway.adminKey, "x-gateway-config": config },
      body: JSON.stringify({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "leak" }] }),
    });
    const text = await response.text();
    expect(text).toContain("event: error");
    expect(text).toContain("guardrail_denied");
    expect(text).not.toContain("[DONE]");
  });

  it("override_params from the config win over the request's fields", async () => {
    const config = JSON.stringify({ provider: "openai", custom_host: `${upstream.url}/v1`, override_params: { temperature: 0.1, max_tokens: 7 } });
    await ask(bareClient({ "x-gateway-config": config }), "hello");
    expect(upstream.getLastRequest()?.body).toMatchObject({ temperature: 0.1, max_tokens: 7 });
  });

  it("precedence: request headers over the config, the config over its virtual key", async () => {
    const key = await create("/v1/virtual-keys", {
      name: "with org",
      provider: "openai",
      key: "sk-vk-ignored-by-this-test",
      upstream_organization: "org-from-virtual-key",
      upstream_project: "proj-from-virtual-key",
      custom_host: `${upstream.url}/v1`,
    });
    const config = JSON.stringify({ virtual_key: key.slug, upstream_project: "proj-from-config" });

    await ask(bareClient({ "x-gateway-config": config }), "hello");
    let headers = upstream.getLastRequest()?.headers ?? {};
    expect(headers["openai-organization"]).toBe("org-from-virtual-key");
    expect(headers["openai-project"]).toBe("proj-from-config");

    await ask(bareClient({ "x-gateway-config": config, "x-gateway-upstream-project": "proj-from-header" }), "hello");
    headers = upstream.getLastRequest()?.headers ?? {};
    expect(headers["openai-organization"]).toBe("org-from-virtual-key");
    expect(headers["openai-project"]).toBe("proj-from-header");
  });

  it("an unknown config slug and a malformed inline config are 400s naming the header", async () => {
    for (const value of ["pc-missing-00000000", '{"provider": "openai", "bogus": 1}', "{not json"]) {
      const answer = await call(gateway, "POST", "/v1/chat/completions", {
        body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] },
        headers: { "x-gateway-config": value },
      });
      expect(answer.status, value).toBe(400);
      expect(answer.body.error.param, value).toMatch(/^x-gateway-config/);
    }
    expect((await ask(openaiClient(gateway, upstream), "hello")).data.choices[0]?.message.content).toBe("Hello back");
  });
});

describe("prompt completions", () => {
  let promptId: string;

  beforeAll(async () => {
    const prompt = await create("/v1/prompts", {
      name: "translator",
      model: "gpt-4o-mini",
      provider: "openai",
      messages: [
        { role: "system", content: "You translate into {{language}}." },
        { role: "user", content: "Translate: {{text}}" },
      ],
      hyperparameters: { temperature: 0.2, max_tokens: 50 },
    });
    promptId = prompt.id;
    expect(prompt.variables).toEqual(["language", "text"]);
  });

  const run = (body: unknown, query = "") =>
    fetch(`${gateway.url}/v1/prompts/${promptId}/completions${query}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-gateway-api-key": gateway.adminKey,
        "x-gateway-custom-host": `${upstream.url}/v1`,
        authorization: "Bearer sk-prompt-upstream",
      },
      body: JSON.stringify(body),
    });

  it("renders the template, applies overrides and is logged with the prompt id and version", async () => {
    const response = await run({ variables: { language: "French", text: "Hello world & <friends>" }, max_tokens: 20, presence_penalty: 0.5 });
    expect(response.status).toBe(200);
    const completion = await response.json();
    expect(completion.choices[0].message.content).toBe("Bonjour le monde");
    const sent = upstream.getLastRequest()?.body as Record<string, any>;
    expect(sent).toMatchObject({ model: "gpt-4o-mini", temperature: 0.2, max_tokens: 20, presence_penalty: 0.5 });
    expect(sent.messages).toEqual([
      { role: "system", content: "You translate into French." },
      { role: "user", content: "Translate: Hello world & <friends>" },
    ]);
    expect(sent.variables).toBeUndefined();
    const record = await storedLog(response.headers.get("x-gateway-log-id"));
    expect(record).toMatchObject({ promptId, promptVersion: 1, route: "createPromptCompletion", totalTokens: 12, provider: "openai" });
    const listed = await call(gateway, "GET", `/v1/logs?prompt_id=${promptId}`);
    expect(listed.body.data.map((log: { id: string }) => log.id)).toContain(record.id);
    expect(listed.body.data.every((log: { prompt_id: string; prompt_version: number }) => log.prompt_id === promptId && log.prompt_version >= 1)).toBe(true);
  });

  it("streams too", async () => {
    const response = await run({ variables: { language: "French", text: "Hello" }, stream: true });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const text = await response.text();
    const content = text
      .split("\n")
      .filter((line) => line.startsWith("data: {"))
      .map((line) => JSON.parse(line.slice(6)).choices[0]?.delta?.content ?? "")
      .join("");
    expect(content).toBe("Bonjour le monde");
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    const record = await storedLog(response.headers.get("x-gateway-log-id"));
    expect(record).toMatchObject({ promptId, promptVersion: 1, stream: true });
  });

  it("names every missing variable, and 404s an unknown prompt or version", async () => {
    const missing = await run({ variables: {} });
    expect(missing.status).toBe(400);
    const body = await missing.json();
    expect(body.error.param).toBe("variables");
    expect(body.error.message).toContain("language");
    expect(body.error.message).toContain("text");
    expect((await run({ variables: { language: "x", text: "y" } }, "?version=9")).status).toBe(404);
    const unknown = await call(gateway, "POST", "/v1/prompts/00000000-0000-4000-8000-00000000abcd/completions", { body: { variables: {} } });
    expect(unknown.status).toBe(404);
  });

  it("renders without calling the upstream", async () => {
    const requestsBefore = upstream.getRequests().length;
    const rendered = await call(gateway, "POST", `/v1/prompts/${promptId}/render`, { body: { variables: { language: "German", text: "Hi" }, top_p: 0.9 } });
    expect(rendered.status).toBe(200);
    expect(rendered.body).toEqual({
      object: "prompt.render",
      prompt_id: promptId,
      version: 1,
      request: {
        model: "gpt-4o-mini",
        temperature: 0.2,
        max_tokens: 50,
        top_p: 0.9,
        messages: [
          { role: "system", content: "You translate into German." },
          { role: "user", content: "Translate: Hi" },
        ],
      },
    });
    expect(upstream.getRequests().length).toBe(requestsBefore);
  });
});
