import { z } from "@hono/zod-openapi";
import { describe, expect, it, vi } from "vitest";
import { CreateChatCompletionRequestSchema } from "../generated/schemas.gen.ts";
import { speedUpValidation } from "./fast-validation.ts";
import { compileJsonPrecheck } from "./json-precheck.ts";

const routeWith = (schema: z.ZodType) => ({
  method: "post" as const,
  path: "/x",
  request: { body: { content: { "application/json": { schema } } } },
  responses: {},
});

/** The schema's answer with the speed-up, next to a fresh zod parse of the same value. */
async function bothAnswers(schema: z.ZodType, value: unknown) {
  const reference = schema.safeParse(structuredClone(value));
  speedUpValidation([routeWith(schema)]);
  return { fast: await schema.safeParseAsync(value), reference };
}

describe("speedUpValidation", () => {
  it("accepts a body its compiled check passes without running zod, and returns it as sent", async () => {
    const schema = z.object({ model: z.string().min(1), n: z.number().int().optional() }).catchall(z.any());
    speedUpValidation([routeWith(schema)]);
    const sync = vi.spyOn(schema, "safeParse");
    const body = { model: "m", n: 2, extra: { a: 1 } };
    const good = await schema.safeParseAsync(body);
    expect(good).toEqual({ success: true, data: body });
    expect(sync).not.toHaveBeenCalled();
    const bad = await schema.safeParseAsync({ model: "", n: 1.5 });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((issue) => issue.path.join("."))).toEqual(["model", "n"]);
    expect(sync).toHaveBeenCalledTimes(1);
  });

  it("agrees with zod on the chat request, valid and invalid", async () => {
    // The inference body is the one this exists for: it must get the compiled check.
    expect(compileJsonPrecheck(CreateChatCompletionRequestSchema)).not.toBeNull();
    const bodies: unknown[] = [
      { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], temperature: 0.2, max_tokens: 128, future_field: { x: [1] } },
      { model: "m", messages: [{ role: "user", content: [{ type: "text", text: "hi" }, { type: "image_url", image_url: { url: "data:," } }] }] },
      { model: "m", messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function" }] }], tools: [{ type: "function", function: { name: "f" } }], stream: true, stream_options: { include_usage: true } },
      { model: "m", messages: [] },
      { model: "", messages: [{ role: "user", content: "hi" }] },
      { model: "m", messages: [{ role: "robot", content: "hi" }] },
      { model: "m", messages: [{ role: "user", content: 5 }] },
      { model: "m", messages: [{ role: "user" }], temperature: 3 },
      { model: "m", messages: [{ role: "user" }], max_tokens: 1.5 },
      { model: "m", messages: [{ role: "user" }], tools: [{ type: "function", function: { name: "" } }] },
      { model: "m", messages: [{ role: "user" }], metadata: { a: 1 } },
      { messages: [{ role: "user" }] },
      [],
      "text",
      null,
    ];
    for (const body of bodies) {
      const reference = CreateChatCompletionRequestSchema.safeParse(structuredClone(body));
      speedUpValidation([routeWith(CreateChatCompletionRequestSchema)]);
      const fast = await CreateChatCompletionRequestSchema.safeParseAsync(body);
      expect({ body, success: fast.success }).toEqual({ body, success: reference.success });
      if (fast.success) expect(fast.data).toEqual(reference.data);
      else expect(fast.error?.issues).toEqual(reference.error?.issues);
    }
  });

  it("leaves to zod what JSON Schema cannot say: refinements, overwrites, formats, stripped keys, astral lengths", async () => {
    const refined = await bothAnswers(z.object({ name: z.string() }).refine((value) => value.name !== "taken", { message: "taken" }), { name: "taken" });
    expect(refined.fast.success).toBe(false);
    expect(refined.fast.error?.issues[0]?.message).toBe("taken");
    const trimmed = await bothAnswers(z.object({ name: z.string().trim() }), { name: "  a  " });
    expect(trimmed.fast).toEqual({ success: true, data: { name: "a" } });
    const email = await bothAnswers(z.object({ to: z.string().email() }), { to: "not an address" });
    expect(email.fast.success).toBe(false);
    const stripped = await bothAnswers(z.object({ a: z.string() }), { a: "x", extra: 1 });
    expect(stripped.fast).toEqual({ success: true, data: { a: "x" } });
    // Lengths count code points on both sides: two emoji are four UTF-16 units.
    for (const [schema, value] of [[z.string().max(2), "😀😀"], [z.string().min(2), "😀"], [z.string().length(1), "😀"], [z.string().max(3), "😀😀"]] as const) {
      const astral = await bothAnswers(z.object({ s: schema }), { s: value });
      expect({ value, success: astral.fast.success }).toEqual({ value, success: astral.reference.success });
    }
    const defaulted = await bothAnswers(z.object({ n: z.number().default(7) }), {});
    expect(defaulted.fast).toEqual({ success: true, data: { n: 7 } });
  });

  it("compiles no check for schemas with refinements, pipes, transforms or enum-keyed records", () => {
    expect(compileJsonPrecheck(z.object({ a: z.string() }).refine(() => true))).toBeNull();
    expect(compileJsonPrecheck(z.object({ a: z.array(z.string().trim()) }))).toBeNull();
    expect(compileJsonPrecheck(z.string().pipe(z.coerce.number()))).toBeNull();
    expect(compileJsonPrecheck(z.string().transform((text) => text.length))).toBeNull();
    expect(compileJsonPrecheck(z.record(z.enum(["a", "b"]), z.string()))).toBeNull();
    expect(compileJsonPrecheck(z.object({ a: z.string() }))).not.toBeNull();
  });

  it("falls back to the asynchronous parse for a schema that needs it", async () => {
    const schema = z.object({ name: z.string() }).refine(async (value) => value.name !== "taken", { message: "taken" });
    speedUpValidation([routeWith(schema)]);
    expect((await schema.safeParseAsync({ name: "free" })).success).toBe(true);
    const taken = await schema.safeParseAsync({ name: "taken" });
    expect(taken.success).toBe(false);
    expect(taken.error?.issues[0]?.message).toBe("taken");
  });

  it("switches query and path parameter schemas to the synchronous parse, once however often it runs", async () => {
    const query = z.object({ limit: z.coerce.number().int() });
    const route = { method: "get" as const, path: "/y", request: { query }, responses: {} };
    speedUpValidation([route]);
    const switched = query.safeParseAsync;
    speedUpValidation([route]);
    expect(query.safeParseAsync).toBe(switched);
    expect(await query.safeParseAsync({ limit: "5" })).toEqual({ success: true, data: { limit: 5 } });
  });
});
