import { z } from "@hono/zod-openapi";
import { describe, expect, it, vi } from "vitest";
import { validateSynchronously } from "./synchronous-validation.ts";

const routeWith = (schema: z.ZodType) => ({
  method: "post" as const,
  path: "/x",
  request: { body: { content: { "application/json": { schema } } } },
  responses: {},
});

describe("validateSynchronously", () => {
  it("answers safeParseAsync with the synchronous parse, same result", async () => {
    const schema = z.object({ model: z.string().min(1), n: z.number().int().optional() }).catchall(z.any());
    validateSynchronously([routeWith(schema)]);
    const sync = vi.spyOn(schema, "safeParse");
    const good = await schema.safeParseAsync({ model: "m", n: 2, extra: { a: 1 } });
    expect(good).toEqual({ success: true, data: { model: "m", n: 2, extra: { a: 1 } } });
    const bad = await schema.safeParseAsync({ model: "", n: 1.5 });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((issue) => issue.path.join("."))).toEqual(["model", "n"]);
    expect(sync).toHaveBeenCalledTimes(2);
  });

  it("falls back to the asynchronous parse for a schema that needs it", async () => {
    const schema = z.object({ name: z.string() }).refine(async (value) => value.name !== "taken", { message: "taken" });
    validateSynchronously([routeWith(schema)]);
    expect((await schema.safeParseAsync({ name: "free" })).success).toBe(true);
    const taken = await schema.safeParseAsync({ name: "taken" });
    expect(taken.success).toBe(false);
    expect(taken.error?.issues[0]?.message).toBe("taken");
  });

  it("switches query and path parameter schemas too, once however often it runs", async () => {
    const query = z.object({ limit: z.coerce.number().int() });
    const route = { method: "get" as const, path: "/y", request: { query }, responses: {} };
    validateSynchronously([route]);
    const switched = query.safeParseAsync;
    validateSynchronously([route]);
    expect(query.safeParseAsync).toBe(switched);
    expect(await query.safeParseAsync({ limit: "5" })).toEqual({ success: true, data: { limit: 5 } });
  });
});
