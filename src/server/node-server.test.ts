import { describe, expect, it } from "vitest";
import { serverTimeouts } from "./node-server.ts";

describe("serverTimeouts", () => {
  it("sets Node's timeouts from the config and checks them at a tenth of the headers timeout", () => {
    expect(serverTimeouts({ headersMs: 10_000, requestMs: 300_000, keepAliveMs: 75_000 })).toEqual({
      headersTimeout: 10_000,
      requestTimeout: 300_000,
      keepAliveTimeout: 75_000,
      connectionsCheckingInterval: 1_000,
    });
    expect(serverTimeouts({ headersMs: 3_000, requestMs: 300_000, keepAliveMs: 5_000 }).connectionsCheckingInterval).toBe(300);
  });

  it("keeps the headers timeout within the request timeout, which Node requires", () => {
    expect(serverTimeouts({ headersMs: 10_000, requestMs: 2_000, keepAliveMs: 5_000 })).toMatchObject({ headersTimeout: 2_000, requestTimeout: 2_000 });
  });
});
