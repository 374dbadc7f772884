import { describe, expect, it } from "vitest";
import { closeWhileDraining } from "./shutdown.ts";

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
