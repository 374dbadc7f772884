import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { GatewayEnv } from "../app-env.ts";
import { handleError } from "../app-errors.ts";
import { jsonShapeProblem, limitBodyTime, MAX_JSON_OBJECT_KEYS } from "./read-body.ts";
import { MAX_JSON_DEPTH } from "../validation/json-depth.ts";

function app(timeoutMs: number): Hono<GatewayEnv> {
  const app = new Hono<GatewayEnv>();
  app.onError(handleError);
  app.use("*", limitBodyTime(timeoutMs));
  app.post("/", async (c) => c.json({ got: await c.req.json() }, 200));
  app.delete("/", (c) => c.json({ streamed: c.req.raw.body !== null && !c.req.raw.bodyUsed }, 200));
  return app;
}

/** A body that sends `first`, then nothing more for `stallMs`, then the rest. */
function stalledBody(first: string, rest: string, stallMs: number): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let step = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (step++ === 0) return controller.enqueue(encoder.encode(first));
      await new Promise((resolve) => setTimeout(resolve, stallMs));
      controller.enqueue(encoder.encode(rest));
      controller.close();
    },
  });
}

const post = (body: BodyInit, method = "POST"): Request =>
  new Request("http://gateway/", { method, body, headers: { "content-type": "application/json" }, duplex: "half" } as RequestInit);

describe("limitBodyTime", () => {
  it("answers 408 request_timeout with Connection: close when a JSON body is not whole in time", async () => {
    const started = performance.now();
    const response = await app(100).fetch(post(stalledBody('{"a":', "1}", 2000)));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(response.status).toBe(408);
    expect(response.headers.get("connection")).toBe("close");
    expect((await response.json()).error).toMatchObject({ code: "request_timeout", type: "timeout_error" });
  });

  it("passes a body that arrives in time to the route, read once", async () => {
    const response = await app(1000).fetch(post(stalledBody('{"a":', "1}", 20)));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ got: { a: 1 } });
  });

  it("leaves a DELETE's body unread, for routes that forward it as it is", async () => {
    const response = await app(100).fetch(post('{"a":1}', "DELETE"));
    expect(await response.json()).toEqual({ streamed: true });
  });

  it("refuses a timeout that is not a positive whole number when created", () => {
    expect(() => limitBodyTime(0)).toThrow(/positive/);
  });
});

describe("the shape of a JSON text, read before it is parsed", () => {
  it("passes bodies within the limits, whatever their strings hold", () => {
    const body = { model: "m", messages: [{ role: "user", content: 'braces { [ , ] } and "quotes" \\ and \\\\' }], list: Array.from({ length: 50_000 }, (_, index) => index) };
    expect(jsonShapeProblem(JSON.stringify(body))).toBeNull();
    expect(jsonShapeProblem(JSON.stringify({ keys: Object.fromEntries(Array.from({ length: MAX_JSON_OBJECT_KEYS }, (_, index) => [`k${index}`, index])) }))).toBeNull();
  });

  it("refuses nesting past the depth limit, and an object past the key limit", () => {
    expect(jsonShapeProblem("[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH))).toBeNull();
    expect(jsonShapeProblem("[".repeat(MAX_JSON_DEPTH + 1) + "]".repeat(MAX_JSON_DEPTH + 1))).toMatch(/nested deeper than 128/);
    const keys = Object.fromEntries(Array.from({ length: MAX_JSON_OBJECT_KEYS + 1 }, (_, index) => [`k${index}`, index]));
    expect(jsonShapeProblem(JSON.stringify({ a: { metadata: keys } }))).toMatch(/more than 10000 keys/);
    // Commas inside strings, or in a nested array, are not the object's keys.
    expect(jsonShapeProblem(JSON.stringify({ text: ",".repeat(MAX_JSON_OBJECT_KEYS * 2), list: Array(MAX_JSON_OBJECT_KEYS * 2).fill(0) }))).toBeNull();
  });

  it("leaves text that is not JSON to the parser", () => {
    expect(jsonShapeProblem('{"open": "never closed')).toBeNull();
    expect(jsonShapeProblem("]]]}}}")).toBeNull();
  });
});
