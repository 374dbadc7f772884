import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startGateway, type RunningGateway } from "./support/harness.ts";

/**
 * Every stored value the gateway interprets later is checked when it is saved, on create and on
 * update alike: a 400 in the error envelope naming the field, with the limit in the message.
 */

let gateway: RunningGateway;
const LOCAL_HOST = "http://127.0.0.1:9/v1";

beforeAll(async () => {
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
});

function expectRefused(response: { status: number; body: any }, param: string, message: RegExp): void {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.error).toMatchObject({ param, type: "invalid_request_error" });
  expect(response.body.error.message).toMatch(message);
}

describe("guardrails", () => {
  it("refuse a webhook URL the custom-host guard refuses, at create and update", async () => {
    const webhook = (url: string) => ({ name: "hook", checks: [{ type: "contains", params: { words: ["x"], operator: "any" } }, { type: "webhook", params: { url } }] });
    const refused = await call(gateway, "POST", "/v1/guardrails", { body: webhook("http://10.1.2.3/verdict") });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "forbidden_custom_host", param: "checks.1.params.url" });
    const saved = await call(gateway, "POST", "/v1/guardrails", { body: webhook("http://127.0.0.1:9/verdict") });
    expect(saved.status).toBe(201);
    const updated = await call(gateway, "PUT", `/v1/guardrails/${saved.body.slug}`, { body: { checks: webhook("http://169.254.169.254/latest").checks } });
    expect(updated.status).toBe(400);
    expect(updated.body.error).toMatchObject({ code: "forbidden_custom_host", param: "checks.1.params.url" });
  });

  it("refuse a JSON Schema that loops, nests too deep or is too wide, and patterns past 1,000 characters", async () => {
    const schemaCheck = (schema: unknown) => ({ name: "schema", checks: [{ type: "json_schema", params: { schema } }] });
    expectRefused(await call(gateway, "POST", "/v1/guardrails", { body: schemaCheck({ $ref: "#" }) }), "checks.0.params.schema", /leads back to itself/);
    let deep: unknown = { type: "string" };
    for (let i = 0; i < 40; i++) deep = { type: "object", properties: { a: deep } };
    expectRefused(await call(gateway, "POST", "/v1/guardrails", { body: schemaCheck(deep) }), "checks.0.params.schema", /deeper than 64 levels/);
    expectRefused(await call(gateway, "POST", "/v1/guardrails", { body: schemaCheck({ anyOf: Array.from({ length: 101 }, (_, i) => ({ const: i })) }) }), "checks.0.params.schema", /anyOf lists more than 100/);
    expectRefused(await call(gateway, "POST", "/v1/guardrails", { body: schemaCheck({ type: "string", pattern: "a".repeat(1001) }) }), "checks.0.params.schema", /longer than 1000 characters/);
  });
});

describe("virtual keys", () => {
  it("refuse values that cannot be sent as HTTP headers, at create and update", async () => {
    const base = { name: "vk", provider: "openai", custom_host: LOCAL_HOST };
    expectRefused(await call(gateway, "POST", "/v1/virtual-keys", { body: { ...base, key: "sk-a\r\nX-Injected: 1" } }), "key", /printable ASCII/);
    expectRefused(await call(gateway, "POST", "/v1/virtual-keys", { body: { ...base, key: "sk-ok-0001", upstream_organization: "Örg" } }), "upstream_organization", /printable ASCII/);
    expectRefused(await call(gateway, "POST", "/v1/virtual-keys", { body: { ...base, key: "sk-ok-0001", upstream_project: "p".repeat(257) } }), "upstream_project", /longer than 256/);
    const saved = await call(gateway, "POST", "/v1/virtual-keys", { body: { ...base, key: "sk-ok-0001" } });
    expect(saved.status).toBe(201);
    expectRefused(await call(gateway, "PUT", `/v1/virtual-keys/${saved.body.slug}`, { body: { key: "sk with space" } }), "key", /printable ASCII/);
    expectRefused(await call(gateway, "PUT", `/v1/virtual-keys/${saved.body.slug}`, { body: { custom_host: `${LOCAL_HOST}/${"a".repeat(2048)}`, key: "sk-ok-0002" } }), "custom_host", /longer than 2048/);
  });
});

describe("configs", () => {
  it("refuse past the limits at create and update, naming the field", async () => {
    const conditional = (count: number) => ({
      strategy: { mode: "conditional", conditions: [{ query: { $or: Array.from({ length: count }, (_, i) => ({ [`metadata.k${i}`]: { $regex: `^v${i}$` } })) }, then: "a" }], default: "a" },
      targets: [{ name: "a", provider: "openai", custom_host: LOCAL_HOST }],
    });
    expectRefused(await call(gateway, "POST", "/v1/configs", { body: { name: "c", config: conditional(100) } }).then(async (ok) => {
      expect(ok.status).toBe(201);
      return call(gateway, "PUT", `/v1/configs/${ok.body.slug}`, { body: { config: { ...conditional(100), strategy: { ...conditional(100).strategy, conditions: [conditional(100).strategy.conditions[0]!, { query: { "metadata.x": { $regex: "y" } }, then: "a" }] } } } });
    }), "config.strategy.conditions.1.query", /more than 100 \$regex patterns/);
    expectRefused(await call(gateway, "POST", "/v1/configs", { body: { name: "c", config: { provider: "openai", api_key: "sk-\u2028x" } } }), "config.api_key", /printable ASCII/);
    expectRefused(await call(gateway, "POST", "/v1/configs", { body: { name: "c", config: { output_guardrails: Array.from({ length: 21 }, (_, i) => `g${i}`) } } }), "config.output_guardrails", /more than 20 guardrails/);
    const regex = { strategy: { mode: "conditional", conditions: [{ query: { "metadata.x": { $regex: "a".repeat(1001) } }, then: "a" }] }, targets: [{ name: "a", provider: "openai" }] };
    expectRefused(await call(gateway, "POST", "/v1/configs", { body: { name: "c", config: regex } }), "config.strategy.conditions.0.query.metadata.x.$regex", /longer than 1000 characters/);
  });

  it("check a nested target's custom host when saved", async () => {
    const config = { strategy: { mode: "fallback" }, targets: [{ strategy: { mode: "single" }, targets: [{ provider: "openai", custom_host: "http://10.9.9.9/v1" }] }] };
    const refused = await call(gateway, "POST", "/v1/configs", { body: { name: "nested", config } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "forbidden_custom_host", param: "config.targets.0.targets.0.custom_host" });
  });
});

describe("prompts", () => {
  it("refuse more than 1,000 variables or messages, at create and update", async () => {
    const prompt = (messages: Array<{ role: string; content: string }>) => ({ name: "p", model: "gpt-4o-mini", provider: "openai", messages });
    const variables = Array.from({ length: 1001 }, (_, i) => `{{v${i}}}`).join(" ");
    expectRefused(await call(gateway, "POST", "/v1/prompts", { body: prompt([{ role: "user", content: variables }]) }), "messages", /1001 variables, more than the 1000 allowed/);
    const many = Array.from({ length: 1001 }, () => ({ role: "user", content: "" }));
    expectRefused(await call(gateway, "POST", "/v1/prompts", { body: prompt(many) }), "messages.1000.content", /at most 1000 messages/);
    const saved = await call(gateway, "POST", "/v1/prompts", { body: prompt([{ role: "user", content: "{{a}}" }]) });
    expect(saved.status).toBe(201);
    expectRefused(await call(gateway, "PUT", `/v1/prompts/${saved.body.id}`, { body: { messages: [{ role: "user", content: variables }] } }), "messages", /more than the 1000 allowed/);
  });
});
