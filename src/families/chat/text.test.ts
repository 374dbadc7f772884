import { describe, expect, it } from "vitest";
import { inputText, outputText } from "./text.ts";

describe("inputText", () => {
  it("joins string contents and the text of text parts, skipping other parts", () => {
    const body = {
      model: "m",
      messages: [
        { role: "system", content: "Be brief." },
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: "https://example.com/a.png" } },
            { type: "text", text: "Answer in French." },
          ],
        },
        { role: "assistant", content: null, tool_calls: [] },
      ],
    };
    expect(inputText(body)).toBe("Be brief.\nWhat is this?\nAnswer in French.");
  });

  it("is empty without messages or with malformed ones", () => {
    expect(inputText({})).toBe("");
    expect(inputText({ messages: "hi" })).toBe("");
    expect(inputText({ messages: [null, 3, { content: 5 }] })).toBe("");
  });
});

describe("outputText", () => {
  it("joins the assistant content of every choice", () => {
    const body = {
      choices: [
        { index: 0, message: { role: "assistant", content: "First." } },
        { index: 1, message: { role: "assistant", content: [{ type: "text", text: "Second." }] } },
        { index: 2, message: { role: "assistant", content: null } },
      ],
    };
    expect(outputText(body)).toBe("First.\nSecond.");
  });

  it("is empty for a body without choices", () => {
    expect(outputText({ error: { message: "x" } })).toBe("");
  });
});
