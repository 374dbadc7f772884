import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createChatCompletionRoute, createResponseRoute, createRealtimeSessionRoute } from "../../generated/routes.gen.ts";
import { compileHeaderReader } from "./header-reader.ts";

const schemas = { createChatCompletion: createChatCompletionRoute.request.headers, createResponse: createResponseRoute.request.headers, createRealtimeSession: createRealtimeSessionRoute.request.headers };

/** Values that exercise every rule: URLs good and bad, digits in and out of range, enum words, long and empty strings. */
const headerValue = fc.oneof(
  fc.constantFrom("", "openai", "http://127.0.0.1:9/v1", "https://example.com/v1", "not a url", "ftp://x", "0", "1", "3600000", "3600001", "12x", "true", "false", "TRUE"),
  fc.string({ maxLength: 140 }),
  fc.string({ minLength: 250, maxLength: 300 }),
);

describe("compileHeaderReader", () => {
  for (const [operation, schema] of Object.entries(schemas)) {
    const names = Object.keys((schema as unknown as { shape: Record<string, unknown> }).shape);
    const reader = compileHeaderReader(schema);

    it(`reads ${operation}'s gateway headers exactly as its schema does, and refuses only what it refuses`, () => {
      expect(reader).toBeDefined();
      fc.assert(
        fc.property(fc.dictionary(fc.constantFrom(...names), headerValue, { maxKeys: names.length }), (sent) => {
          const headers = new Headers(sent);
          const byZod = schema.safeParse(Object.fromEntries(names.filter((name) => headers.has(name)).map((name) => [name, headers.get(name)])));
          const read = reader!(headers);
          if (byZod.success) expect(read).toEqual(byZod.data);
          else expect(read).toBeNull();
        }),
        { numRuns: 400 },
      );
    });
  }

  it("gives no reader for a schema with a required field, which zod must refuse when missing", () => {
    expect(compileHeaderReader(z.object({ "x-required": z.string() }))).toBeUndefined();
  });

  it("turns a request timeout into its number and a refresh flag into its boolean", () => {
    const read = compileHeaderReader(schemas.createChatCompletion)!(new Headers({ "x-gateway-request-timeout": "2500", "x-gateway-cache-force-refresh": "true", "x-unlisted": "dropped" }));
    expect(read).toEqual({ "x-gateway-request-timeout": 2500, "x-gateway-cache-force-refresh": true });
  });
});
