import { describe, expect, it } from "vitest";
import { GatewayError } from "../../errors.ts";
import { openaiChatTransforms, refusedChatField, withoutDroppedFields } from "./chat.ts";

const groq = { refuse: ["logprobs", "messages[].name"], only: { n: 1 } };
const messages = [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi", name: "ana" }];

describe("chat fields a provider does not take", () => {
  it("refuses a sent field, naming it and the provider", () => {
    const refused = refusedChatField({ model: "m", messages: [], logprobs: true }, groq, "Groq");
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({ code: "invalid_request", status: 400, param: "logprobs" });
    expect(refused!.message).toContain("Groq does not accept `logprobs`");
  });

  it("names the message that carries a refused message field", () => {
    expect(refusedChatField({ model: "m", messages }, groq, "Groq")).toMatchObject({ param: "messages[1].name" });
  });

  it("refuses a one-value field at another value, and takes it at that value", () => {
    expect(refusedChatField({ model: "m", messages: [], n: 2 }, groq, "Groq")).toMatchObject({ param: "n" });
    expect(refusedChatField({ model: "m", messages: [], n: 1 }, groq, "Groq")).toBeNull();
  });

  it("takes a field left out or sent as null", () => {
    expect(refusedChatField({ model: "m", messages: [{ role: "user", content: "Hi", name: null }], logprobs: null }, groq, "Groq")).toBeNull();
  });

  it("removes dropped fields, and keeps the same object when none is there", () => {
    const body = { model: "m", messages: [], seed: 4, user: "u" };
    expect(withoutDroppedFields(body, { drop: ["seed"] })).toEqual({ model: "m", messages: [], user: "u" });
    expect(withoutDroppedFields(body, { drop: ["service_tier"] })).toBe(body);
  });

  it("applies in the chat transform before anything is sent, streamed or not", () => {
    const transforms = openaiChatTransforms("stream_options", { refuse: ["logit_bias"], drop: ["seed"] }, "Example");
    const refused = transforms.request!({ model: "m", messages: [], logit_bias: { "1": 2 } }, { model: "m", stream: true });
    expect("error" in refused && refused.error.param).toBe("logit_bias");
    const sent = transforms.request!({ model: "m", messages: [], seed: 1 }, { model: "m", stream: true });
    expect("body" in sent && sent.body).toEqual({ model: "m", messages: [], stream_options: { include_usage: true } });
  });
});
