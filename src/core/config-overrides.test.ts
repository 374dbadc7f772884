import { describe, expect, it } from "vitest";
import { openApiDocument } from "../generated/openapi-document.gen.ts";
import { overrideParamsError } from "./config-overrides.ts";

describe("overrideParamsError", () => {
  it("accepts overrides a chat body accepts, unknown fields included", () => {
    expect(overrideParamsError({ model: "gpt-4o", stream: true, temperature: 0, seed: 1 })).toBeNull();
  });

  it("names the config and the override a chat body would refuse", () => {
    for (const model of [1, null, {}, []]) {
      const error = overrideParamsError({ model });
      expect(error?.status, JSON.stringify(model)).toBe(400);
      expect(error?.param).toBe("x-gateway-config");
      expect(error?.message).toContain("override_params.model");
    }
    expect(overrideParamsError({ stream: "yes" })?.message).toContain("override_params.stream");
  });

  it("keeps one verdict per overrides object", () => {
    const overrides = { model: 1 };
    expect(overrideParamsError(overrides)).toBe(overrideParamsError(overrides));
  });

  it("documents for configs the fields and rules of the chat request body, the model never empty", () => {
    const { model, ...config } = openApiDocument.components.schemas.ConfigOverrideParams.properties;
    const { model: chatModel, ...chat } = openApiDocument.components.schemas.CreateChatCompletionRequest.properties;
    expect(config).toEqual(chat);
    expect(model).toMatchObject({ type: chatModel.type, minLength: 1 });
  });
});
