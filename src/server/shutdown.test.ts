import { describe, expect, it } from "vitest";
import { closeWhileDraining, waitUntilQuiet } from "./shutdown.ts";

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
