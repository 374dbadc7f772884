import { describe, expect, it } from "vitest";
import { MAX_REQUEST_TIMEOUT_MS } from "../config.ts";
import { openApiDocument } from "../generated/openapi-document.gen.ts";
import { createChatCompletionRoute, createPromptCompletionRoute } from "../generated/routes.gen.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { requestTimeout, withOverrides } from "./request-config.ts";

describe("jsonFieldOverrides", () => {
  it("accepts overrides a chat body accepts, unknown fields included", () => {
    expect(jsonFieldOverrides({ model: "gpt-4o", stream: true, temperature: 0, seed: 1 })).toBeNull();
  });

  it("names the config and the override a chat body would refuse", () => {
    for (const model of [1, null, {}, []]) {
      const error = jsonFieldOverrides({ model });
      expect(error?.status, JSON.stringify(model)).toBe(400);
      expect(error?.param).toBe("x-gateway-config");
      expect(error?.message).toContain("override_params.model");
    }
    expect(jsonFieldOverrides({ stream: "yes" })?.message).toContain("override_params.stream");
  });

  it("keeps one verdict per overrides object", () => {
    const overrides = { model: 1 };
    expect(jsonFieldOverrides(overrides)).toBe(jsonFieldOverrides(overrides));
  });

  it("documents for configs the fields and rules of the chat request body, the model never empty", () => {
    const { model, ...config } = openApiDocument.components.schemas.ConfigOverrideParams.properties;
    const { model: chatModel, ...chat } = openApiDocument.components.schemas.CreateChatCompletionRequest.properties;
    expect(config).toEqual(chat);
    expect(model).toMatchObject({ type: chatModel.type, minLength: 1 });
  });
});

describe("withOverrides", () => {
  const body = { kind: "json" as const, value: { model: "a", temperature: 1 } };

  it("merges overrides its operation's rule passes over the body's own fields", () => {
    const merged = withOverrides(body, { model: "b" }, { id: "createEmbedding", overrides: jsonFieldOverrides });
    expect(merged.ok && merged.value).toEqual({ kind: "json", value: { model: "b", temperature: 1 } });
  });

  it("answers the rule's 400 for overrides it refuses", () => {
    const refused = withOverrides(body, { stream: "yes" }, { id: "createEmbedding", overrides: jsonFieldOverrides });
    expect(!refused.ok && refused.error).toMatchObject({ status: 400, param: "x-gateway-config" });
  });

  it("refuses overrides for an operation without a rule rather than send them unchecked", () => {
    const refused = withOverrides(body, { model: "b" }, { id: "someOperation" });
    expect(!refused.ok && refused.error).toMatchObject({ status: 400, param: "x-gateway-config" });
    expect(!refused.ok && refused.error.message).toContain("someOperation");
  });

  it("passes a body with no overrides, or one that is not JSON, as it is", () => {
    const none = { kind: "none" as const };
    expect(withOverrides(none, { model: "b" }, { id: "someOperation" })).toEqual({ ok: true, value: none });
    expect(withOverrides(body, undefined, { id: "someOperation" })).toEqual({ ok: true, value: body });
  });
});

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
