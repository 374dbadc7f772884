import { describe, expect, it } from "vitest";
import { canonicalJson, requestFingerprint, toolCallFingerprint } from "./run-fingerprint.ts";

describe("run fingerprints", () => {
  it("makes key order, whitespace and streaming no difference, and any other change one", () => {
    const a = requestFingerprint("createChatCompletion", JSON.parse('{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"temperature":0.5}'));
    const b = requestFingerprint("createChatCompletion", JSON.parse('{ "temperature": 0.5, "messages": [ { "content": "hi", "role": "user" } ], "model": "gpt-4o", "stream": true, "stream_options": {"include_usage": true} }'));
    expect(b).toBe(a);
    expect(requestFingerprint("createChatCompletion", { model: "gpt-4o", messages: [{ role: "user", content: "hi!" }], temperature: 0.5 })).not.toBe(a);
    expect(requestFingerprint("createResponse", { model: "gpt-4o", messages: [{ role: "user", content: "hi" }], temperature: 0.5 })).not.toBe(a);
    // Array order is meaning: it is kept.
    expect(canonicalJson({ b: [2, 1], a: { d: 1, c: null } })).toBe('{"a":{"c":null,"d":1},"b":[2,1]}');
  });

  it("tells tool calls apart by server, tool and arguments, whatever the arguments' key order", () => {
    const call = toolCallFingerprint("docs", "search", { query: "x", limit: 5 });
    expect(toolCallFingerprint("docs", "search", { limit: 5, query: "x" })).toBe(call);
    expect(toolCallFingerprint("docs", "search", { limit: 6, query: "x" })).not.toBe(call);
    expect(toolCallFingerprint("web", "search", { limit: 5, query: "x" })).not.toBe(call);
    expect(toolCallFingerprint("docs", "fetch", { limit: 5, query: "x" })).not.toBe(call);
  });
});
