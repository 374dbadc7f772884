import { describe, expect, it } from "vitest";
import { isResponsesStreamEnd, responsesInputText, responsesOutputText, responsesStreamText, terminalResponse } from "./text.ts";

const answer = {
  id: "resp_1",
  object: "response",
  output: [
    { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "thinking" }] },
    { type: "message", role: "assistant", content: [{ type: "output_text", text: "Paris" }, { type: "refusal", refusal: "no" }] },
    { type: "function_call", name: "f", arguments: "{}" },
  ],
};

describe("the Responses API's text", () => {
  it("reads a request's instructions and input: a string, message strings and input_text parts, not images or tool outputs", () => {
    expect(responsesInputText({ model: "m", instructions: "Be brief.", input: "Hi" })).toBe("Be brief.\nHi");
    const input = [
      { role: "system", content: "rules" },
      { type: "message", role: "user", content: [{ type: "input_text", text: "look" }, { type: "input_image", image_url: "https://x/y.png" }] },
      { type: "function_call_output", call_id: "c", output: "42" },
    ];
    expect(responsesInputText({ model: "m", input })).toBe("rules\nlook");
    expect(responsesInputText({ model: "m" })).toBe("");
  });

  it("reads an answer's output_text parts of message items only", () => {
    expect(responsesOutputText(answer)).toBe("Paris");
    expect(responsesOutputText({ output: "nonsense" })).toBe("");
  });

  it("assembles a stream's text from its deltas, adding the final response's when it differs", () => {
    const delta = (text: string) => JSON.stringify({ type: "response.output_text.delta", delta: text });
    const completed = (response: object) => JSON.stringify({ type: "response.completed", response });
    expect(responsesStreamText([delta("Par"), delta("is"), completed(answer)])).toBe("Paris");
    expect(responsesStreamText([delta("Par"), "not json"])).toBe("Par");
    expect(responsesStreamText([completed(answer)])).toBe("Paris");
    expect(responsesStreamText([delta("Lyon"), completed(answer)])).toBe("Lyon\nParis");
  });

  it("finds the last terminal event's response, and tells terminal events by their event line or type", () => {
    const events = [{ type: "response.created", response: { id: "a" } }, { type: "response.incomplete", response: { id: "b" } }, { type: "response.output_text.done" }];
    expect(terminalResponse(events)).toEqual({ id: "b" });
    expect(terminalResponse([{ type: "response.in_progress", response: {} }])).toBeNull();
    expect(isResponsesStreamEnd({ event: "response.completed", data: "{}" })).toBe(true);
    expect(isResponsesStreamEnd({ event: "response.failed", data: "{}" })).toBe(true);
    expect(isResponsesStreamEnd({ event: "response.output_text.delta", data: '{"delta":"response.completed"}' })).toBe(false);
    expect(isResponsesStreamEnd({ event: null, data: '{"sequence_number":9,"type":"response.completed","response":{}}' })).toBe(true);
    expect(isResponsesStreamEnd({ event: null, data: '{"type":"response.output_text.delta","delta":"\\"response.completed\\""}' })).toBe(false);
    expect(isResponsesStreamEnd({ event: "error", data: "{}" })).toBe(false);
  });
});
