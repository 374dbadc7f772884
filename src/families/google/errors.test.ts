import { describe, expect, it } from "vitest";
import { gatewayEnvelopeFacts, googleErrorBody, googleStatusName } from "./errors.ts";

describe("the gateway's errors in Google's shape", () => {
  it("names the status as Google does and the refused field in a BadRequest detail", () => {
    const facts = gatewayEnvelopeFacts(400, { error: { message: "Invalid field 'contents': too short", type: "invalid_request_error", param: "contents", code: null } });
    expect(googleErrorBody(facts!)).toEqual({
      error: {
        code: 400,
        message: "Invalid field 'contents': too short",
        status: "INVALID_ARGUMENT",
        details: [{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field: "contents", description: "Invalid field 'contents': too short" }] }],
      },
    });
    expect([401, 404, 408, 429, 446, 502, 503].map(googleStatusName)).toEqual(["UNAUTHENTICATED", "NOT_FOUND", "DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED", "PERMISSION_DENIED", "INTERNAL", "UNAVAILABLE"]);
  });

  it("keeps a denial's extra fields and leaves a body already in Google's shape alone", () => {
    expect(googleErrorBody(gatewayEnvelopeFacts(446, { error: { message: "denied" }, hook_results: { before: [] } })!)).toEqual({ hook_results: { before: [] }, error: { code: 446, message: "denied", status: "PERMISSION_DENIED" } });
    expect(gatewayEnvelopeFacts(404, { error: { code: 404, message: "gone", status: "NOT_FOUND" } })).toBeNull();
    expect(gatewayEnvelopeFacts(500, "not json")).toBeNull();
  });
});
