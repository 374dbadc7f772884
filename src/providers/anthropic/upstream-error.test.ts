import { describe, expect, it } from "vitest";
import { anthropicUpstreamError } from "./upstream-error.ts";

const body = (type: string, message: string) => JSON.stringify({ type: "error", error: { type, message }, request_id: "req_1" });

describe("anthropic upstream errors", () => {
  it("keeps the status, message and error type, and passes Retry-After on a 429", () => {
    const error = anthropicUpstreamError(429, body("rate_limit_error", "Slow down"), { "retry-after": "7" });
    expect(error.status).toBe(429);
    expect(error.headers).toEqual({ "retry-after": "7" });
    expect(error.toBody()).toEqual({ error: { message: "Slow down", type: "rate_limit_error", code: "rate_limit_error", param: null } });
  });

  it("keeps 529 for overloaded_error, as routing saw it", () => {
    const error = anthropicUpstreamError(529, body("overloaded_error", "Overloaded"), {});
    expect(error.status).toBe(529);
    expect(error.toBody().error).toMatchObject({ type: "overloaded_error", code: "overloaded_error", message: "Overloaded" });
  });

  it("wraps a body that is not Anthropic's shape", () => {
    const error = anthropicUpstreamError(502, "<html>bad gateway</html>", {});
    expect(error.status).toBe(502);
    expect(error.message).toContain("Anthropic returned HTTP 502");
  });
});
