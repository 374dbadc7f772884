import { describe, expect, it } from "vitest";
import { alwaysCacheable, isCacheable } from "../operation/descriptor.ts";
import { chatCacheRule } from "./chat/index.ts";
import { responsesCacheRule } from "./responses/index.ts";

describe("isCacheable", () => {
  it("never caches an operation without a cache rule, nor a body that is not JSON", () => {
    expect(isCacheable({}, { model: "m" })).toBe(false);
    expect(isCacheable({ cache: alwaysCacheable }, null)).toBe(false);
    expect(isCacheable({ cache: alwaysCacheable }, { model: "m" })).toBe(true);
  });

  it("keeps chat completions stored upstream out of the cache", () => {
    expect(isCacheable({ cache: chatCacheRule }, { model: "m", store: true })).toBe(false);
    expect(isCacheable({ cache: chatCacheRule }, { model: "m", store: false })).toBe(true);
  });

  it("caches a Responses request only with store: false and no background job, conversation or unversioned prompt", () => {
    const plain = { model: "m", input: "hi", store: false };
    expect(responsesCacheRule({ model: "m", input: "hi" })).toBe("store");
    expect(responsesCacheRule(plain)).toBeNull();
    expect(responsesCacheRule({ ...plain, background: true })).toBe("background");
    expect(responsesCacheRule({ ...plain, conversation: "conv_1" })).toBe("conversation");
    expect(responsesCacheRule({ ...plain, prompt: { id: "pmpt_1" } })).toBe("prompt");
    expect(responsesCacheRule({ ...plain, prompt: { id: "pmpt_1", version: "2" } })).toBeNull();
  });
});
