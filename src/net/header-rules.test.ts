import { describe, expect, it } from "vitest";
import { answerShapingHeaders, CLIENT_TO_UPSTREAM, crosses, forwardedRequestHeaders, GATEWAY_USER_AGENT, PASSED_ON_LIMITS, passedOnHeaders, UPSTREAM_TO_CLIENT } from "./header-rules.ts";

describe("client headers on their way upstream", () => {
  it("forward what the upstream honours, the user agent with the gateway appended", () => {
    const forwarded = forwardedRequestHeaders(
      new Headers({ "Idempotency-Key": "idem-1", "X-Client-Request-Id": "c-1", "User-Agent": "OpenAI/JS 6.0.0", Accept: "application/json", "OpenAI-Beta": "assistants=v2" }),
    );
    expect(forwarded).toEqual({
      "idempotency-key": "idem-1",
      "x-client-request-id": "c-1",
      "user-agent": `OpenAI/JS 6.0.0 ${GATEWAY_USER_AGENT}`,
      accept: "application/json",
      "openai-beta": "assistants=v2",
    });
  });

  it("never forward credentials, the gateway's own headers, cookies or hop-by-hop headers", () => {
    const forwarded = forwardedRequestHeaders(
      new Headers({
        authorization: "Bearer sk-client",
        "x-api-key": "sk-ant",
        "x-gateway-api-key": "gw-key",
        "x-gateway-provider": "openai",
        cookie: "a=b",
        connection: "keep-alive",
        "proxy-authorization": "Basic x",
        te: "trailers",
        host: "gateway.local",
        "content-length": "12",
        "openai-organization": "org-1",
      }),
    );
    expect(forwarded).toEqual({ "user-agent": GATEWAY_USER_AGENT });
  });

  it("let deny win over allow", () => {
    expect(crosses({ allow: { names: [], prefixes: ["x-"] }, deny: CLIENT_TO_UPSTREAM.deny }, "x-gateway-api-key")).toBe(false);
    expect(crosses({ allow: { names: [], prefixes: ["x-"] }, deny: CLIENT_TO_UPSTREAM.deny }, "x-client-request-id")).toBe(true);
  });

  it("put only the answer-shaping ones in a cache key", () => {
    expect(answerShapingHeaders({ accept: "application/json", "openai-beta": "v2", "idempotency-key": "i", "user-agent": "u" })).toEqual({ accept: "application/json", "openai-beta": "v2" });
  });
});

describe("upstream headers on their way back", () => {
  it("pass request ids, versions, timing and every provider's rate limits, whatever their case", () => {
    const passed = passedOnHeaders(
      new Headers({
        "X-Request-Id": "req_1",
        "request-id": "req_ant",
        "openai-processing-ms": "12",
        "openai-version": "2020-10-01",
        "x-ratelimit-remaining-tokens": "10",
        "anthropic-ratelimit-requests-remaining": "5",
        "retry-after": "3",
        "retry-after-ms": "3000",
      }),
    );
    expect(passed).toEqual({
      "x-request-id": "req_1",
      "request-id": "req_ant",
      "openai-processing-ms": "12",
      "openai-version": "2020-10-01",
      "x-ratelimit-remaining-tokens": "10",
      "anthropic-ratelimit-requests-remaining": "5",
      "retry-after": "3",
      "retry-after-ms": "3000",
    });
  });

  it("never pass cookies, framing, or headers named like the gateway's own", () => {
    const passed = passedOnHeaders(
      new Headers({ "set-cookie": "a=b", "transfer-encoding": "chunked", "content-length": "3", connection: "close", "x-gateway-provider": "other", "openai-organization": "org-upstream", server: "cloudflare" }),
    );
    expect(passed).toEqual({});
    expect(crosses(UPSTREAM_TO_CLIENT, "Set-Cookie")).toBe(false);
  });

  it("pass no long value, and at most 32 rate-limit headers, ids always", () => {
    const sent = new Headers({ "x-request-id": "req_1", "retry-after": "9".repeat(300), "x-ratelimit-limit-requests": "x".repeat(257) });
    for (let index = 0; index < 40; index += 1) sent.set(`x-ratelimit-${String(index).padStart(2, "0")}`, "1");
    const passed = passedOnHeaders(sent);
    expect(passed["x-request-id"]).toBe("req_1");
    expect(passed["retry-after"]).toBeUndefined();
    expect(passed["x-ratelimit-limit-requests"]).toBeUndefined();
    expect(Object.keys(passed).filter((name) => name.startsWith("x-ratelimit-"))).toHaveLength(PASSED_ON_LIMITS.prefixed);
  });
});
