import { describe, expect, it } from "vitest";
import { InflightTracker } from "../lib/inflight.ts";
import { closeWhileDraining, serveUntilClosed, waitUntilQuiet } from "./shutdown.ts";

describe("closeWhileDraining", () => {
  it("leaves answers alone while the gateway serves", async () => {
    const state = { draining: false };
    expect((closeWhileDraining(state, new Response("ok")) as Response).headers.get("connection")).toBeNull();
    expect((await closeWhileDraining(state, Promise.resolve(new Response("ok")))).headers.get("connection")).toBeNull();
  });

  it("closes the connection of an answer that is ready after the drain began, even if its request came before", async () => {
    const state = { draining: false };
    let answer: (response: Response) => void = () => undefined;
    const pending = closeWhileDraining(state, new Promise<Response>((resolve) => (answer = resolve)));
    state.draining = true;
    answer(new Response("late"));
    const response = await pending;
    expect(response.headers.get("connection")).toBe("close");
    expect(await response.text()).toBe("late");
  });

  it("closes the connection of a relayed answer whose headers are immutable, keeping status, headers and body", async () => {
    const upstream = await fetch("data:application/json,%7B%22a%22%3A1%7D");
    expect(() => upstream.headers.set("x", "y")).toThrow();
    const response = closeWhileDraining({ draining: true }, upstream) as Response;
    expect(response.headers.get("connection")).toBe("close");
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ a: 1 });
  });
});

describe("serveUntilClosed", () => {
  it("counts a request in flight from its arrival until its answer is ready", async () => {
    const inflight = new InflightTracker();
    let answer: (response: Response) => void = () => undefined;
    const pending = serveUntilClosed({ draining: false }, inflight, () => new Promise<Response>((resolve) => (answer = resolve)));
    expect(inflight.size).toBe(1);
    answer(new Response("ok"));
    await pending;
    expect(inflight.size).toBe(0);
    serveUntilClosed({ draining: false }, inflight, () => new Response("at once"));
    expect(inflight.size).toBe(0);
  });

  it("refuses requests with 503 and the error envelope once the final drain began, without calling the app", async () => {
    const inflight = new InflightTracker();
    let called = false;
    const response = (await serveUntilClosed({ draining: true, closed: true }, inflight, () => {
      called = true;
      return new Response("served");
    })) as Response;
    expect(called).toBe(false);
    expect(inflight.size).toBe(0);
    expect(response.status).toBe(503);
    expect(response.headers.get("connection")).toBe("close");
    expect(await response.json()).toEqual({ error: { message: expect.stringContaining("shutting down"), type: "server_error", code: "service_unavailable", param: null } });
  });
});

describe("waitUntilQuiet", () => {
  const idle = { size: 0, idle: () => Promise.resolve(true) };

  it("waits until no request has arrived for the quiet period", async () => {
    const state = { draining: true, lastRequestAt: performance.now() };
    const started = performance.now();
    const late = setTimeout(() => (state.lastRequestAt = performance.now()), 60);
    await waitUntilQuiet(state, idle, { quietMs: 100, maxMs: 2_000 });
    clearTimeout(late);
    expect(performance.now() - started).toBeGreaterThanOrEqual(155);
  });

  it("gives up at the deadline while requests keep arriving", async () => {
    const state = { draining: true, lastRequestAt: performance.now() };
    const steady = setInterval(() => (state.lastRequestAt = performance.now()), 10);
    const started = performance.now();
    await waitUntilQuiet(state, idle, { quietMs: 100, maxMs: 300 });
    clearInterval(steady);
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
