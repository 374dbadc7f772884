import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { findProvider } from "../providers/catalogue.ts";
import type { Target } from "../operation/target.ts";
import { cacheKey, canonicalJson, type CacheKeyParts } from "./cache-key.ts";

const openai = findProvider("openai")!;
const target = (apiKey: string, model = "gpt-4o-mini"): Target => ({
  provider: openai,
  baseUrl: "https://api.openai.com/v1",
  credentials: { style: "bearer", apiKey, organization: null, project: null, fields: {} },
  model,
  virtualKeyId: null,
});
const parts = (overrides: Partial<CacheKeyParts> = {}): CacheKeyParts => ({
  workspaceId: "ws-1",
  namespace: "",
  operationId: "createChatCompletion",
  upstreamPath: "/chat/completions",
  forwardedHeaders: {},
  targets: [target("sk-a")],
  body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] },
  ...overrides,
});

describe("cacheKey", () => {
  it("sorts keys at every depth but keeps array order", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
    expect(cacheKey(parts({ body: { messages: [{ content: "hi", role: "user" }], model: "gpt-4o-mini" } }))).toBe(cacheKey(parts()));
    expect(cacheKey(parts({ body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }, { role: "user", content: "there" }] } }))).not.toBe(
      cacheKey(parts({ body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "there" }, { role: "user", content: "hi" }] } })),
    );
  });

  it("differs for every part that can change the answer or who may read it", () => {
    const base = cacheKey(parts());
    const variants = [
      parts({ workspaceId: "ws-2" }),
      parts({ namespace: "n" }),
      parts({ operationId: "createResponse" }),
      parts({ forwardedHeaders: { "openai-beta": "x" } }),
      parts({ targets: [target("sk-b")] }),
      parts({ targets: [target("sk-a", "gpt-4o")] }),
      parts({ targets: [target("sk-a"), target("sk-b")] }),
      parts({ body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], user: "u" } }),
    ];
    const keys = new Set(variants.map(cacheKey));
    expect(keys.size).toBe(variants.length);
    expect(keys.has(base)).toBe(false);
  });

  it("treats the targets as a set and never holds a credential in clear", () => {
    expect(cacheKey(parts({ targets: [target("sk-a"), target("sk-b")] }))).toBe(cacheKey(parts({ targets: [target("sk-b"), target("sk-a"), target("sk-b")] })));
    expect(cacheKey(parts())).toMatch(/^[0-9a-f]{64}$/);
  });

  it("keeps the digest of its fixed layout, so keys stored in Redis by any replica still match", () => {
    const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");
    const { credentials } = target("sk-a");
    const identity = JSON.stringify(["openai", "https://api.openai.com/v1", "gpt-4o-mini"]) + canonicalJson(credentials) + "{}";
    const body = sha256('{"messages":[{"content":"hi","role":"user"}],"model":"gpt-4o-mini"}');
    expect(cacheKey(parts())).toBe(sha256(JSON.stringify([2, "ws-1", "", "createChatCompletion", "/chat/completions", "{}", [identity], body])));
  });
});

describe("cacheKey with the body's text", () => {
  const body = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] };

  it("gives the key of the parsed body, whichever text it came from", () => {
    const reordered = '{"messages":[{"content":"hi","role":"user"}],"model":"gpt-4o-mini"}';
    const spaced = '{ "model": "gpt-4o-mini", "messages": [ { "role": "user", "content": "hi" } ] }';
    const expected = cacheKey(parts({ body }));
    expect(cacheKey(parts({ body, bodyText: JSON.stringify(body) }))).toBe(expected);
    expect(cacheKey(parts({ body: JSON.parse(reordered), bodyText: reordered }))).toBe(expected);
    // Asked again, the remembered digest gives the same key.
    expect(cacheKey(parts({ body: JSON.parse(spaced), bodyText: spaced }))).toBe(expected);
    expect(cacheKey(parts({ body: JSON.parse(spaced), bodyText: spaced }))).toBe(expected);
  });

  it("never lets one text stand for another body", () => {
    const other = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] };
    const text = JSON.stringify(body);
    expect(cacheKey(parts({ body, bodyText: text }))).not.toBe(cacheKey(parts({ body: other, bodyText: JSON.stringify(other) })));
    // A long text is digested each time, not remembered, and keys the same way.
    const long = { ...body, messages: [{ role: "user", content: "x".repeat(20_000) }] };
    expect(cacheKey(parts({ body: long, bodyText: JSON.stringify(long) }))).toBe(cacheKey(parts({ body: long })));
  });
});
