import { describe, expect, it } from "vitest";
import { MAX_REQUEST_TIMEOUT_MS } from "../config.ts";
import { openApiDocument } from "../generated/openapi-document.gen.ts";
import { createChatCompletionRoute, createPromptCompletionRoute } from "../generated/routes.gen.ts";
import { requestTimeout } from "./request-timeout.ts";

const HEADER = "x-gateway-request-timeout";

describe("x-gateway-request-timeout", () => {
  it.each([createChatCompletionRoute, createPromptCompletionRoute])("$operationId: the generated validator takes decimal digits up to one hour", (route) => {
    expect(route.request.headers.parse({ [HEADER]: "250" })[HEADER]).toBe(250);
    expect(route.request.headers.parse({ [HEADER]: "3600000" })[HEADER]).toBe(3_600_000);
    expect(route.request.headers.parse({})[HEADER]).toBeUndefined();
  });

  it.each(["0x10", " 100 ", "1e3", "+5000", "-5", "1.5", "", "0", "3600001", "2147483648", "99999999999"])(
    "the generated validator refuses %j, naming the header and the bounds",
    (raw) => {
      const result = createChatCompletionRoute.request.headers.safeParse({ [HEADER]: raw });
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]).toMatchObject({ path: [HEADER], message: expect.stringContaining("from 1 to 3600000") });
    },
  );

  it("the document's maximum is the gateway's bound", () => {
    expect(openApiDocument.components.parameters.RequestTimeout.schema.maximum).toBe(MAX_REQUEST_TIMEOUT_MS);
  });

  it("takes the header, else the fallback held to one hour", () => {
    expect(requestTimeout(250, 600_000)).toBe(250);
    expect(requestTimeout(undefined, 99_999_999_999)).toBe(3_600_000);
    expect(requestTimeout(undefined, 1500)).toBe(1500);
  });
});
