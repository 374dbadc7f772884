import { describe, expect, it } from "vitest";
import { toGeminiCountTokensRequest } from "./count-tokens.ts";

describe("Gemini's token counting", () => {
  it("sends the client's body without the selecting model, to the model's own path", () => {
    const contents = [{ role: "user", parts: [{ text: "count me" }] }];
    expect(toGeminiCountTokensRequest({ model: "@gemini/gemini-2.5-flash", contents }, { model: "gemini-2.5-flash" })).toEqual({ body: { contents }, path: "/models/gemini-2.5-flash:countTokens" });
    expect(toGeminiCountTokensRequest({ contents }, { model: "models/gemini-2.5-pro" }).path).toBe("/models/gemini-2.5-pro:countTokens");
  });
});
