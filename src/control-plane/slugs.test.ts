import { describe, expect, it } from "vitest";
import { makeSlug } from "./slugs.ts";

describe("makeSlug", () => {
  it("builds <prefix>-<words>-<8 hex> from the name", () => {
    expect(makeSlug("pc", "Prod routing: EU!")).toMatch(/^pc-prod-routing-eu-[0-9a-f]{8}$/);
    expect(makeSlug("pg", "Café déjà vu")).toMatch(/^pg-cafe-deja-vu-[0-9a-f]{8}$/);
  });

  it("keeps the form for names without letters or digits and bounds the length", () => {
    expect(makeSlug("vk", "日本語")).toMatch(/^vk-vk-[0-9a-f]{8}$/);
    const long = makeSlug("pc", `${"a".repeat(100)} b c d e f`);
    expect(long).toMatch(/^pc-a{32}-b-c-d-[0-9a-f]{8}$/);
  });

  it("gives a different slug to the same name", () => {
    expect(makeSlug("pc", "same")).not.toBe(makeSlug("pc", "same"));
  });
});
