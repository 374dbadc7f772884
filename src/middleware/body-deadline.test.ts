import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { GatewayEnv } from "../app-env.ts";
import { handleError } from "../app-errors.ts";
import { limitBodyTime } from "./body-deadline.ts";

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
