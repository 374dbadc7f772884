import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { DEFAULT_ORGANISATION_ID, DEFAULT_WORKSPACE_ID, OPERATOR_KEY_ID } from "../src/control-plane/auth-context.ts";
import { gatewayContractProblems } from "./support/contract.ts";
import { call, startGateway, type RunningGateway } from "./support/harness.ts";

/** The prompt library: /v1/prompts, /v1/prompts/{id}, …/versions, …/publish. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const SUPPORT_MESSAGES = [
  { role: "system", content: "You answer in {{language}}." },
  { role: "user", content: "{{#urgent}}URGENT: {{/urgent}}{{question}} (from {{customer.name}})" },
];
const supportPrompt = (overrides: Record<string, unknown> = {}) => ({
  name: "support reply",
  model: "gpt-4o-mini",
  provider: "openai",
  messages: SUPPORT_MESSAGES,
  hyperparameters: { temperature: 0.2, max_tokens: 200 },
  ...overrides,
});

let gateway: RunningGateway;
let virtualKeySlug: string;

beforeAll(async () => {
  gateway = await startGateway();
  const key = await call(gateway, "POST", "/v1/virtual-keys", { body: { name: "prompts openai", provider: "openai", key: "sk-prompt-test-0123456789abcdef" } });
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  virtualKeySlug = key.body.slug;
});

afterAll(async () => {
  await gateway?.close();
});

function expectContract(operationId: string, response: { status: number; body: unknown }): void {
  expect(gatewayContractProblems(operationId, response.status, response.body), operationId).toEqual([]);
}

async function createPrompt(body: unknown = supportPrompt(), key?: string): Promise<any> {
  const created = await call(gateway, "POST", "/v1/prompts", { body, key });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expectContract("createPrompt", created);
  return created.body;
}

function expectBadRequest(response: { status: number; body: any }, param: string, code = "invalid_request"): void {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.error).toMatchObject({ code, param, type: "invalid_request_error" });
}

const get = (id: string, key?: string) => call(gateway, "GET", `/v1/prompts/${id}`, { key });
const put = (id: string, body: unknown, key?: string) => call(gateway, "PUT", `/v1/prompts/${id}`, { body, key });
const publish = (id: string, body: unknown, key?: string) => call(gateway, "POST", `/v1/prompts/${id}/publish`, { body, key });
const versions = (id: string, key?: string) => call(gateway, "GET", `/v1/prompts/${id}/versions`, { key });
const remove = (id: string, key?: string) => call(gateway, "DELETE", `/v1/prompts/${id}`, { key });
const list = (key?: string) => call(gateway, "GET", "/v1/prompts", { key });

describe("creating and reading prompts", () => {
  it("creates a prompt at version 1 that lists the variables of its templates", async () => {
    const prompt = await createPrompt(supportPrompt({ provider: "OpenAI" }));
    expect(prompt).toMatchObject({
      object: "prompt",
      name: "support reply",
      default_version: 1,
      versions_count: 1,
      model: "gpt-4o-mini",
      provider: "openai",
      virtual_key: null,
      messages: SUPPORT_MESSAGES,
      hyperparameters: { temperature: 0.2, max_tokens: 200 },
      variables: ["customer", "language", "question", "urgent"],
      organisation_id: DEFAULT_ORGANISATION_ID,
      workspace_id: DEFAULT_WORKSPACE_ID,
      owner_id: OPERATOR_KEY_ID,
      updated_by: OPERATOR_KEY_ID,
    });
    expect(prompt.id).toMatch(UUID);
    expect(prompt.version_id).toMatch(UUID);
    expect(prompt.created_at).toMatch(TIMESTAMP);

    const read = await get(prompt.id);
    expect(read.status).toBe(200);
    expectContract("getPrompt", read);
    expect(read.body).toEqual(prompt);
  });

  it("lists the workspace's prompts newest first", async () => {
    const first = await createPrompt(supportPrompt({ name: "first" }));
    const second = await createPrompt(supportPrompt({ name: "second" }));
    const listed = await list();
    expect(listed.status).toBe(200);
    expectContract("listPrompts", listed);
    expect(listed.body.total).toBe(listed.body.data.length);
    const ids = listed.body.data.map((prompt: { id: string }) => prompt.id);
    expect(ids.indexOf(second.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id));
    expect(listed.body.data.find((prompt: { id: string }) => prompt.id === first.id)).toEqual(first);
  });

  it("runs through a virtual key of the workspace instead of a provider", async () => {
    const prompt = await createPrompt(supportPrompt({ provider: undefined, virtual_key: virtualKeySlug }));
    expect(prompt).toMatchObject({ provider: null, virtual_key: virtualKeySlug });
    const unknown = await call(gateway, "POST", "/v1/prompts", { body: supportPrompt({ provider: undefined, virtual_key: "vk-missing-00000000" }) });
    expectBadRequest(unknown, "virtual_key");
  });

  it("an unknown prompt id is a 404, a malformed one a 400", async () => {
    const missing = await get(randomUUID());
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: "not_found", param: "id" });
    expectBadRequest(await get("not-a-uuid"), "id");
  });
});

describe("versions", () => {
  it("PUT adds a version built from the default one; publish: true makes it the default", async () => {
    const prompt = await createPrompt();

    const v2 = await put(prompt.id, { messages: [{ role: "user", content: "Tell me about {{topic}}." }] });
    expect(v2.status, JSON.stringify(v2.body)).toBe(200);
    expectContract("updatePrompt", v2);
    expect(v2.body).toMatchObject({
      object: "prompt_version",
      prompt_id: prompt.id,
      version: 2,
      is_default: false,
      model: "gpt-4o-mini",
      provider: "openai",
      virtual_key: null,
      hyperparameters: { temperature: 0.2, max_tokens: 200 },
      variables: ["topic"],
      created_by: OPERATOR_KEY_ID,
    });
    expect(v2.body.version_id).not.toBe(prompt.version_id);
    const stillV1 = await get(prompt.id);
    expect(stillV1.body).toMatchObject({ default_version: 1, versions_count: 2, messages: SUPPORT_MESSAGES, version_id: prompt.version_id });

    // Version 3 starts from the default (version 1), not from the newest (version 2).
    const v3 = await put(prompt.id, { model: "gpt-4o", hyperparameters: { temperature: 1 }, publish: true });
    expect(v3.status, JSON.stringify(v3.body)).toBe(200);
    expect(v3.body).toMatchObject({ version: 3, is_default: true, model: "gpt-4o", messages: SUPPORT_MESSAGES, hyperparameters: { temperature: 1 } });
    expect(v3.body.variables).toEqual(prompt.variables);
    const atV3 = await get(prompt.id);
    expect(atV3.body).toMatchObject({ default_version: 3, version_id: v3.body.version_id, model: "gpt-4o", name: "support reply" });

    const renamed = await put(prompt.id, { name: "support reply v2" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ version: 4, is_default: false, model: "gpt-4o" });
    expect((await get(prompt.id)).body).toMatchObject({ name: "support reply v2", default_version: 3, versions_count: 4 });

    const listed = await versions(prompt.id);
    expect(listed.status).toBe(200);
    expectContract("listPromptVersions", listed);
    expect(listed.body.total).toBe(4);
    expect(listed.body.data.map((version: { version: number }) => version.version)).toEqual([4, 3, 2, 1]);
    expect(listed.body.data.map((version: { is_default: boolean }) => version.is_default)).toEqual([false, true, false, false]);
    expect(listed.body.data[2]).toEqual(v2.body);
  });

  it("POST /publish moves the default to an existing version", async () => {
    const prompt = await createPrompt();
    const v2 = await put(prompt.id, { messages: [{ role: "user", content: "Summarise {{text}}" }] });
    const published = await publish(prompt.id, { version: 2 });
    expect(published.status).toBe(200);
    expectContract("publishPromptVersion", published);
    expect(published.body).toMatchObject({ id: prompt.id, default_version: 2, version_id: v2.body.version_id, variables: ["text"], versions_count: 2 });
    expect((await get(prompt.id)).body.default_version).toBe(2);

    const back = await publish(prompt.id, { version: 1 });
    expect(back.body).toMatchObject({ default_version: 1, variables: prompt.variables });

    const unknown = await publish(prompt.id, { version: 9 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: "not_found", param: "version" });
    expect((await get(prompt.id)).body.default_version).toBe(1);
  });

  it("switches between provider and virtual key only when the other is cleared", async () => {
    const prompt = await createPrompt();
    expectBadRequest(await put(prompt.id, { virtual_key: virtualKeySlug }), "virtual_key");
    expectBadRequest(await put(prompt.id, { provider: null }), "provider");
    const switched = await put(prompt.id, { provider: null, virtual_key: virtualKeySlug, publish: true });
    expect(switched.status, JSON.stringify(switched.body)).toBe(200);
    expect(switched.body).toMatchObject({ provider: null, virtual_key: virtualKeySlug, is_default: true });
    const back = await put(prompt.id, { provider: "groq", virtual_key: null });
    expect(back.body).toMatchObject({ provider: "groq", virtual_key: null });
    expectBadRequest(await put(prompt.id, { virtual_key: "vk-missing-00000000", provider: null }), "virtual_key");
    expect((await get(prompt.id)).body.versions_count).toBe(3);
  });

  it("a new default is seen at once by the prompt's render (the cache is invalidated)", async () => {
    const prompt = await createPrompt(supportPrompt({ messages: [{ role: "user", content: "Hello {{name}}" }] }));
    const render = () => call(gateway, "POST", `/v1/prompts/${prompt.id}/render`, { body: { variables: { name: "Ada" } } });
    const before = await render();
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    expect(before.body.request.messages).toEqual([{ role: "user", content: "Hello Ada" }]);

    await put(prompt.id, { messages: [{ role: "user", content: "Goodbye {{name}}" }], publish: true });
    expect((await render()).body.request.messages).toEqual([{ role: "user", content: "Goodbye Ada" }]);
    await publish(prompt.id, { version: 1 });
    expect((await render()).body.request.messages).toEqual([{ role: "user", content: "Hello Ada" }]);
    await remove(prompt.id);
    expect((await render()).status).toBe(404);
  });
});

describe("deleting prompts", () => {
  it("deletes the prompt and its versions", async () => {
    const prompt = await createPrompt();
    await put(prompt.id, { model: "gpt-4o" });
    const deleted = await remove(prompt.id);
    expect(deleted.status).toBe(200);
    expectContract("deletePrompt", deleted);
    expect(deleted.body).toEqual({ id: prompt.id, object: "prompt", deleted: true });
    for (const response of [await get(prompt.id), await versions(prompt.id), await put(prompt.id, { model: "x" }), await publish(prompt.id, { version: 1 }), await remove(prompt.id)]) {
      expect(response.status).toBe(404);
      expect(response.body.error).toMatchObject({ code: "not_found", param: "id" });
    }
    expect((await list()).body.data.map((item: { id: string }) => item.id)).not.toContain(prompt.id);
  });
});

describe("bad bodies name the field", () => {
  it("on create", async () => {
    const post = (body: unknown) => call(gateway, "POST", "/v1/prompts", { body });
    expectBadRequest(await post(supportPrompt({ name: undefined })), "name");
    expectBadRequest(await post(supportPrompt({ virtual_key: virtualKeySlug })), "virtual_key");
    expectBadRequest(await post(supportPrompt({ provider: undefined })), "provider");
    expectBadRequest(await post(supportPrompt({ provider: "no-such-provider" })), "provider", "unknown_provider");
    expectBadRequest(await post(supportPrompt({ messages: [{ role: "user", content: "Hi {{#name}} unclosed" }] })), "messages.0.content");
    expectBadRequest(await post(supportPrompt({ messages: [{ role: "system", content: "ok" }, { role: "user", content: "{{> partial}}" }] })), "messages.1.content");
    expectBadRequest(await post(supportPrompt({ messages: [{ role: "tool", content: "x" }] })), "messages.0.role");
    expectBadRequest(await post(supportPrompt({ messages: [] })), "messages");
    expectBadRequest(await post(supportPrompt({ hyperparameters: { model: "gpt-4o" } })), "hyperparameters.model");
    expect((await post(supportPrompt({ colour: "blue" }))).status).toBe(400);
    const malformed = await call(gateway, "POST", "/v1/prompts", { rawBody: "{not json" });
    expect(malformed.status).toBe(400);
  });

  it("on update and publish, without writing a version", async () => {
    const prompt = await createPrompt();
    expectBadRequest(await put(prompt.id, {}), "body");
    expectBadRequest(await put(prompt.id, { publish: true }), "body");
    expectBadRequest(await put(prompt.id, { messages: [{ role: "user", content: "{{/closing}}" }] }), "messages.0.content");
    expectBadRequest(await put(prompt.id, { provider: "no-such-provider" }), "provider", "unknown_provider");
    expectBadRequest(await put(prompt.id, { name: "" }), "name");
    expectBadRequest(await put("not-a-uuid", { name: "x" }), "id");
    expectBadRequest(await publish(prompt.id, {}), "version");
    expectBadRequest(await publish(prompt.id, { version: 0 }), "version");
    const unknownPrompt = await put(randomUUID(), { name: "x" });
    expect(unknownPrompt.status).toBe(404);
    const after = await get(prompt.id);
    expect(after.body).toMatchObject({ versions_count: 1, default_version: 1 });
  });
});

describe("template limits keep the gateway answering", () => {
  const nested = (depth: number) => `${"{{#a}}".repeat(depth)}x${"{{/a}}".repeat(depth)}`;
  const timed = async <T>(work: () => Promise<T>) => {
    const started = performance.now();
    const value = await work();
    return { value, ms: performance.now() - started };
  };
  const health = () => call(gateway, "GET", "/health", { key: null });

  it("refuses 10,000 and 20,000 nested sections at create with a fast 400 naming the message, while /health answers", async () => {
    for (const depth of [10_000, 20_000]) {
      const body = supportPrompt({ messages: [SUPPORT_MESSAGES[0], { role: "user", content: nested(depth) }] });
      const [created, alive] = await Promise.all([timed(() => call(gateway, "POST", "/v1/prompts", { body })), timed(health)]);
      expectBadRequest(created.value, "messages.1.content");
      expect(created.value.body.error.message).toContain("deeper than 32 levels");
      expect(created.ms).toBeLessThan(500);
      expect(alive.value.status).toBe(200);
      expect(alive.ms).toBeLessThan(500);
    }
  });

  it("refuses templates past 256 KiB together, on create and update", async () => {
    const big = "x".repeat(200 * 1024);
    const body = supportPrompt({ messages: [{ role: "system", content: big }, { role: "user", content: big }] });
    expectBadRequest(await call(gateway, "POST", "/v1/prompts", { body }), "messages.1.content");
    const prompt = await createPrompt();
    expectBadRequest(await put(prompt.id, { messages: [{ role: "user", content: `${big}${big}` }] }), "messages.0.content");
    expectBadRequest(await put(prompt.id, { messages: [{ role: "user", content: nested(33) }] }), "messages.0.content");
    expect((await versions(prompt.id)).body.data).toHaveLength(1);
  });

  it("a template at the limits is stored and renders", async () => {
    const atLimit = `${nested(32)} {{name}}`;
    const filler = "y".repeat(256 * 1024 - Buffer.byteLength(atLimit));
    const prompt = await createPrompt(supportPrompt({ messages: [{ role: "system", content: filler }, { role: "user", content: atLimit }] }));
    expect(prompt.variables).toEqual(["a", "name"]);
    const rendered = await call(gateway, "POST", `/v1/prompts/${prompt.id}/render`, { body: { variables: { a: true, name: "Ada" } } });
    expect(rendered.status, JSON.stringify(rendered.body).slice(0, 300)).toBe(200);
    expect(rendered.body.request.messages[1].content).toBe("x Ada");
  });

  it("a stored template past the limits is refused at render and publish with a 400, not a stall", async () => {
    const prompt = await createPrompt();
    const deep = [{ role: "user" as const, content: nested(10_000) }];
    await gateway.gateway.deps.store.prompts.addVersion(DEFAULT_WORKSPACE_ID, prompt.id, {
      version: { versionId: randomUUID(), model: "gpt-4o-mini", provider: "openai", virtualKey: null, messages: deep, hyperparameters: {}, variables: ["a"] },
      publish: false,
      updatedBy: null,
      at: new Date().toISOString(),
    });
    const render = () => call(gateway, "POST", `/v1/prompts/${prompt.id}/render?version=2`, { body: { variables: { a: true } } });
    const [rendered, alive] = await Promise.all([timed(render), timed(health)]);
    expectBadRequest(rendered.value, "messages.0.content");
    expect(rendered.ms).toBeLessThan(500);
    expect(alive.ms).toBeLessThan(500);
    expectBadRequest(await publish(prompt.id, { version: 2 }), "version");
    expect((await get(prompt.id)).body.default_version).toBe(1);
  });
});

describe("who may do what", () => {
  it("a service key may read prompts but not change them", async () => {
    const prompt = await createPrompt();
    const service = await call(gateway, "POST", "/v1/api-keys", { body: { name: "prompt reader", role: "service" } });
    const key: string = service.body.key;

    expect((await list(key)).body.data.map((item: { id: string }) => item.id)).toContain(prompt.id);
    expect((await get(prompt.id, key)).body).toEqual(prompt);
    expect((await versions(prompt.id, key)).body.total).toBe(1);

    for (const [label, response] of [
      ["create", await call(gateway, "POST", "/v1/prompts", { body: supportPrompt(), key })],
      ["update", await put(prompt.id, { model: "gpt-4o" }, key)],
      ["publish", await publish(prompt.id, { version: 1 }, key)],
      ["delete", await remove(prompt.id, key)],
    ] as const) {
      expect(response.status, label).toBe(403);
      expect(response.body.error.code, label).toBe("insufficient_scope");
    }
    expect((await get(prompt.id)).body).toEqual(prompt);
  });

  it("an admin key of another workspace can neither see nor touch this workspace's prompts", async () => {
    const prompt = await createPrompt();
    const otherWorkspace = randomUUID();
    const foreign = await call(gateway, "POST", "/v1/api-keys", { body: { name: "other admin", role: "admin", workspace_id: otherWorkspace } });
    expect(foreign.status).toBe(201);
    const key: string = foreign.body.key;

    expect((await list(key)).body.data.map((item: { id: string }) => item.id)).not.toContain(prompt.id);
    for (const [label, response] of [
      ["get", await get(prompt.id, key)],
      ["versions", await versions(prompt.id, key)],
      ["update", await put(prompt.id, { name: "hijacked" }, key)],
      ["publish", await publish(prompt.id, { version: 1 }, key)],
      ["delete", await remove(prompt.id, key)],
    ] as const) {
      expect(response.status, label).toBe(404);
      expect(response.body.error.code, label).toBe("not_found");
    }
    expect((await get(prompt.id)).body).toEqual(prompt);

    // Their own prompt lives in their workspace, and cannot borrow this workspace's virtual key.
    const theirs = await createPrompt(supportPrompt({ name: "theirs" }), key);
    expect(theirs.workspace_id).toBe(otherWorkspace);
    expect((await list()).body.data.map((item: { id: string }) => item.id)).not.toContain(theirs.id);
    expect((await get(theirs.id)).status).toBe(404);
    const borrowed = await call(gateway, "POST", "/v1/prompts", { body: supportPrompt({ provider: undefined, virtual_key: virtualKeySlug }), key });
    expectBadRequest(borrowed, "virtual_key");
  });
});
