import { describe, expect, it } from "vitest";
import { openApiDocument } from "../generated/openapi-document.gen.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { withOverrides } from "./config-overrides.ts";

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
