import { describe, expect, it } from "vitest";
import { callUpstream } from "./upstream-call.ts";

const options = { timeoutMs: 2_000, fetch: (input: string | URL | Request, init?: RequestInit) => fetch(input, init), providerName: "OpenAI" };

describe("callUpstream", () => {
  it("answers a header HTTP cannot carry (a stored key with a line break) with a 400 naming the header, never a 502 or the value", async () => {
    const result = await callUpstream({ method: "POST", url: "http://127.0.0.1:9/v1/chat/completions", headers: { authorization: "Bearer sk-old\nstored" }, body: "{}" }, options);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({ code: "invalid_request", status: 400 });
    expect(result.error.message).toContain("authorization");
    expect(result.error.message).not.toContain("sk-old");
  });

  it("still calls a refused connection what it is", async () => {
    const result = await callUpstream({ method: "POST", url: "http://127.0.0.1:9/v1/chat/completions", headers: { authorization: "Bearer sk-fine" }, body: "{}" }, options);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({ code: "upstream_unreachable", status: 502 });
  });
});
