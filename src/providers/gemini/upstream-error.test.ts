import { describe, expect, it } from "vitest";
import { geminiUpstreamError } from "./upstream-error.ts";

describe("Google errors as the gateway's", () => {
  it("keeps the status and message, and types the envelope by Google's status", () => {
    const error = geminiUpstreamError(404, JSON.stringify({ error: { code: 404, message: "models/nope is not found", status: "NOT_FOUND" } }));
    expect(error.status).toBe(404);
    expect(error.toBody()).toEqual({ error: { message: "models/nope is not found", type: "not_found_error", code: "NOT_FOUND", param: null } });
  });

  it("answers a refused key with 401", () => {
    const body = {
      error: {
        code: 400,
        message: "API key not valid. Please pass a valid API key.",
        status: "INVALID_ARGUMENT",
        details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com" }],
      },
    };
    const error = geminiUpstreamError(400, JSON.stringify(body));
    expect(error.status).toBe(401);
    expect(error.toBody().error.type).toBe("authentication_error");
  });

  it("keeps Retry-After on 429, and derives it from RetryInfo when the header is absent", () => {
    const body = JSON.stringify({
      error: {
        code: 429,
        message: "Resource has been exhausted",
        status: "RESOURCE_EXHAUSTED",
        details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "36.5s" }],
      },
    });
    expect(geminiUpstreamError(429, body, { "retry-after": "10" }).headers).toEqual({ "retry-after": "10" });
    const derived = geminiUpstreamError(429, body, {});
    expect(derived.status).toBe(429);
    expect(derived.headers).toEqual({ "retry-after": "37" });
    expect(derived.toBody().error).toMatchObject({ type: "rate_limit_error", code: "RESOURCE_EXHAUSTED" });
  });

  it("wraps an answer that is not Google's error shape", () => {
    const error = geminiUpstreamError(502, "<html>Bad Gateway</html>");
    expect(error.status).toBe(502);
    expect(error.message).toBe("Google Gemini returned HTTP 502: <html>Bad Gateway</html>");
    expect(geminiUpstreamError(500, JSON.stringify([{ error: { code: 500, message: "Internal", status: "INTERNAL" } }])).message).toBe("Internal");
  });
});
