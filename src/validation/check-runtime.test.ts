import { describe, expect, it, vi } from "vitest";
import { z } from "@hono/zod-openapi";
import * as bodies from "../generated/request-checks.gen.ts";
import * as schemas from "../generated/schemas.gen.ts";
import { compiledBody } from "./check-runtime.ts";

/** The route's answer for a body next to a fresh zod parse of the same value with the document's schema. */
async function bothAnswers(body: z.ZodType, schema: z.ZodType, value: unknown) {
  const reference = schema.safeParse(structuredClone(value));
  return { route: await body.safeParseAsync(value), reference };
}

async function expectSameAnswer(body: z.ZodType, schema: z.ZodType, value: unknown): Promise<void> {
  const { route, reference } = await bothAnswers(body, schema, value);
  expect({ value, success: route.success }).toEqual({ value, success: reference.success });
  if (route.success) expect(route.data).toEqual(reference.data);
  else expect(route.error?.issues).toEqual(reference.error?.issues);
}

const chatBodies: unknown[] = [
  { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], temperature: 0.2, max_tokens: 128, future_field: { x: [1] } },
  { model: "m", messages: [{ role: "user", content: [{ type: "text", text: "hi" }, { type: "image_url", image_url: { url: "data:," } }] }] },
  { model: "m", messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function" }] }], tools: [{ type: "function", function: { name: "f" } }], stream: true, stream_options: { include_usage: true } },
  { model: "m", messages: [] },
  { model: "", messages: [{ role: "user", content: "hi" }] },
  { model: "m", messages: [{ role: "robot", content: "hi" }] },
  { model: "m", messages: [{ role: "user", content: 5 }] },
  { model: "m", messages: [{ role: "user" }], temperature: 3 },
  { model: "m", messages: [{ role: "user" }], max_tokens: 1.5 },
  { model: "m", messages: [{ role: "user" }], max_tokens: 1e20 },
  { model: "m", messages: [{ role: "user" }], temperature: JSON.parse("1e400") },
  { model: "m", messages: [{ role: "user" }], tools: [{ type: "function", function: { name: "" } }] },
  { model: "m", messages: [{ role: "user" }], metadata: { a: 1 } },
  { model: "😀", messages: [{ role: "user" }] },
  { messages: [{ role: "user" }] },
  [],
  "text",
  null,
];

describe("generated body schemas", () => {
  it("answer chat bodies exactly as the document's zod schema does, valid and invalid", async () => {
    for (const value of chatBodies) await expectSameAnswer(bodies.createChatCompletionBody, schemas.CreateChatCompletionRequestSchema, value);
  });

  it("use a chat body the check accepts as sent: the same object, unknown fields kept, zod not run", async () => {
    const parse = vi.spyOn(schemas.CreateChatCompletionRequestSchema, "safeParse");
    const body = { model: "m", messages: [{ role: "user", content: "hi", vendor_hint: 1 }], future_field: { x: [1] } };
    const result = await bodies.createChatCompletionBody.safeParseAsync(body);
    expect(result.success && result.data).toBe(body);
    expect(parse).not.toHaveBeenCalled();
    const bad = await bodies.createChatCompletionBody.safeParseAsync({ model: "m", messages: [] });
    expect(bad.error?.issues[0]?.path).toEqual(["messages"]);
    expect(parse).toHaveBeenCalledTimes(1);
    parse.mockRestore();
  });

  it("leave to zod what it changes or checks itself: stripped keys, defaults, formats", async () => {
    // zod fills `period` in: the check requires it, so zod's output is the answer.
    const defaulted = await bothAnswers(bodies.createVirtualKeyBody, schemas.CreateVirtualKeyRequestSchema, {
      name: "n", provider: "openai", key: "sk", budget: { credit_limit_usd: 5 },
    });
    expect(defaulted.route).toEqual({ success: true, data: { name: "n", provider: "openai", key: "sk", budget: { credit_limit_usd: 5, period: "none" } } });
    const cases: Array<[z.ZodType, z.ZodType, unknown]> = [
      [bodies.createApiKeyBody, schemas.CreateApiKeyRequestSchema, { name: "k", role: "service", workspace_id: "not-a-uuid" }],
      [bodies.createApiKeyBody, schemas.CreateApiKeyRequestSchema, { name: "k", role: "service", workspace_id: "6f1f4a0e-4b7e-4c1a-9a53-0e0b2f6d8c11" }],
      [bodies.createApiKeyBody, schemas.CreateApiKeyRequestSchema, { name: "k", role: "service", extra: 1 }],
      [bodies.createApiKeyBody, schemas.CreateApiKeyRequestSchema, { name: "😀".repeat(200), role: "admin" }],
      [bodies.createApiKeyBody, schemas.CreateApiKeyRequestSchema, { name: "😀".repeat(201), role: "admin" }],
      [bodies.updateVirtualKeyBody, schemas.UpdateVirtualKeyRequestSchema, { budget: null, rate_limit: { requests_per_minute: 1 } }],
      [bodies.updateVirtualKeyBody, schemas.UpdateVirtualKeyRequestSchema, { budget: { credit_limit_usd: 0 } }],
      [bodies.updateConfigBody, schemas.UpdateConfigRequestSchema, {}],
      [bodies.createConfigBody, schemas.CreateConfigRequestSchema, { name: "c", config: { provider: "openai" } }],
      [bodies.createConfigBody, schemas.CreateConfigRequestSchema, { name: "c", config: 5 }],
      [bodies.publishPromptVersionBody, schemas.PublishPromptRequestSchema, { version: 2 ** 60 }],
      [bodies.createPromptCompletionBody, schemas.PromptCompletionRequestSchema, { variables: { a: 1 }, stream: true, seed: 4 }],
    ];
    for (const [body, schema, value] of cases) await expectSameAnswer(body, schema, value);
  });

  it("give zod's issues, paths and messages unchanged to the validation hook", async () => {
    const schema = z.object({ a: z.object({ b: z.string().min(2, "too short") }) });
    const body = compiledBody(schema, () => [{ path: [], keyword: "format", params: {}, final: false }]);
    const result = await body.safeParseAsync({ a: { b: "x" } });
    expect(result.error?.issues).toEqual(schema.safeParse({ a: { b: "x" } }).error?.issues);
    expect(result.error?.issues[0]).toMatchObject({ path: ["a", "b"], message: "too short" });
  });

  it("name the first failures of a body with a great many bad elements from a sample, never the whole body", async () => {
    const parse = vi.spyOn(schemas.CreateChatCompletionRequestSchema, "safeParse");
    const many = { model: "m", messages: Array.from({ length: 300_000 }, () => ({ role: "robot", content: 1 })) };
    const result = await bodies.createChatCompletionBody.safeParseAsync(many);
    expect(result.error?.issues.length).toBe(5);
    expect(result.error?.issues[0]).toMatchObject({ path: ["messages", 0, "role"] });
    expect(parse).toHaveBeenCalledTimes(1);
    expect((parse.mock.calls[0]?.[0] as { messages: unknown[] }).messages.length).toBeLessThan(10);
    parse.mockRestore();
  });

  it("name a bad element far down a long array at its own index", async () => {
    const messages: unknown[] = Array.from({ length: 50_000 }, () => ({ role: "user", content: "hi" }));
    messages.push({ role: "user", content: 7 });
    const result = await bodies.createChatCompletionBody.safeParseAsync({ model: "m", messages });
    expect(result.error?.issues).toHaveLength(1);
    expect(result.error?.issues[0]?.path.slice(0, 2)).toEqual(["messages", 50_000]);
  });

  it("refuse what the document bounds as OpenAI's API does: 16 metadata pairs", async () => {
    const metadata = Object.fromEntries(Array.from({ length: 5_000 }, (_, index) => [`k${index}`, "v"]));
    const tooMany = await bodies.createChatCompletionBody.safeParseAsync({ model: "m", messages: [{ role: "user", content: "hi" }], metadata });
    expect(tooMany.error?.issues[0]).toMatchObject({ path: ["metadata"], message: "Too big: expected object to have <=16 properties" });
    const sixteen = Object.fromEntries(Array.from({ length: 16 }, (_, index) => [`k${index}`, "v"]));
    expect((await bodies.createResponseBody.safeParseAsync({ model: "m", input: "hi", metadata: sixteen })).success).toBe(true);
    const long = await bodies.createChatCompletionBody.safeParseAsync({ model: "m", messages: [{ role: "user", content: "hi" }], metadata: { a: "x".repeat(513) } });
    expect(long.error?.issues[0]).toMatchObject({ path: ["metadata", "a"] });
  });

  it("answer a refusal the sample cannot show from the check's final failure", async () => {
    // 40 valid pairs: the sample keeps all, so zod names the count; past the sample's keys the check's failure answers.
    for (const count of [40, 5_000]) {
      const metadata = Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, "v"]));
      const result = await bodies.createResponseBody.safeParseAsync({ model: "m", input: "hi", metadata });
      expect(result.error?.issues).toEqual([expect.objectContaining({ path: ["metadata"], message: "Too big: expected object to have <=16 properties" })]);
    }
  });

  it("check a oneOf itself, answering as zod does", async () => {
    const tool = (allowed: unknown) => ({ model: "m", input: "hi", tools: [{ type: "mcp", server_label: "crm", allowed_tools: allowed }] });
    const parse = vi.spyOn(schemas.CreateResponseRequestSchema, "safeParse");
    const accepted = tool({ tool_names: ["find"] });
    expect((await bodies.createResponseBody.safeParseAsync(accepted)).data).toBe(accepted);
    expect(parse).not.toHaveBeenCalled();
    parse.mockRestore();
    for (const allowed of [["find"], null, { tool_names: [1] }, [1], "find"]) await expectSameAnswer(bodies.createResponseBody, schemas.CreateResponseRequestSchema, tool(allowed));
  });
});

