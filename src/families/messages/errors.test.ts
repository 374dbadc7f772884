import { describe, expect, it } from "vitest";
import { anthropicErrorBody, anthropicErrorType, envelopeFacts } from "./errors.ts";

describe("errors in Anthropic's shape", () => {
  it("picks Anthropic's type by status", () => {
    const types = [400, 401, 402, 403, 404, 408, 412, 413, 429, 446, 500, 502, 504, 529].map(anthropicErrorType);
    expect(types).toEqual([
      "invalid_request_error",
      "authentication_error",
      "billing_error",
      "permission_error",
      "not_found_error",
      "timeout_error",
      "invalid_request_error",
      "request_too_large",
      "rate_limit_error",
      "invalid_request_error",
      "api_error",
      "api_error",
      "timeout_error",
      "overloaded_error",
    ]);
  });

  it("reshapes the gateway's envelope, keeping its extra fields", () => {
    const facts = envelopeFacts(446, { error: { message: "Denied.", type: "guardrail_error", code: "guardrail_denied", param: null }, hook_results: { input: [] } });
    expect(facts).toEqual({ status: 446, message: "Denied.", details: { hook_results: { input: [] } } });
    expect(anthropicErrorBody(facts!, "log-1")).toEqual({ type: "error", error: { type: "invalid_request_error", message: "Denied." }, hook_results: { input: [] }, request_id: "log-1" });
  });

  it("reads nothing from bodies that are not the envelope", () => {
    expect(envelopeFacts(500, "oops")).toBeNull();
    expect(envelopeFacts(500, { error: "oops" })).toBeNull();
  });
});
