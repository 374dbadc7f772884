import { describe, expect, it } from "vitest";
import { runSync } from "../testing.ts";
import { findUrls, isValidUrl, validUrls } from "./valid_urls.ts";

const run = (params: Record<string, unknown>, text: string) =>
  runSync(validUrls, params, { text });

describe("findUrls", () => {
  it("finds scheme URLs and trims trailing punctuation and unbalanced brackets", () => {
    const text = "See https://example.com/a?b=1. Also (http://x.org/path) and https://en.wikipedia.org/wiki/Foo_(bar), ok";
    expect(findUrls(text)).toEqual(["https://example.com/a?b=1", "http://x.org/path", "https://en.wikipedia.org/wiki/Foo_(bar)"]);
  });
});

describe("isValidUrl", () => {
  it("accepts web URLs with a domain, IP or localhost host", () => {
    expect(isValidUrl("https://sub.example.co.uk/x")).toBe(true);
    expect(isValidUrl("http://127.0.0.1:8080/")).toBe(true);
    expect(isValidUrl("http://[::1]/")).toBe(true);
    expect(isValidUrl("http://localhost:3000")).toBe(true);
    expect(isValidUrl("https://bücher.de")).toBe(true);
  });

  it("refuses other schemes and malformed hosts", () => {
    expect(isValidUrl("ftp://example.com/file")).toBe(false);
    expect(isValidUrl("javascript://alert(1)")).toBe(false);
    expect(isValidUrl("https://example")).toBe(false);
    expect(isValidUrl("https://-bad-.com")).toBe(false);
    expect(isValidUrl("https://exa_mple.com")).toBe(false);
    expect(isValidUrl("http://")).toBe(false);
    expect(isValidUrl("http://example.com", true)).toBe(false);
  });
});

describe("valid_urls", () => {
  it("passes when every URL is valid, and when there are none", () => {
    expect(run({}, "Docs: https://example.com/docs and http://example.org.")).toMatchObject({ verdict: true, data: { count: 2, invalid: 0 } });
    expect(run({}, "no links at all")).toMatchObject({ verdict: true, data: { count: 0 } });
  });

  it("fails when a URL is invalid, giving counts and not the URL", () => {
    const outcome = run({}, "Go to https://example.com and https://secret-token@bad_host/x");
    expect(outcome).toMatchObject({ verdict: false, data: { count: 2, invalid: 1 } });
    expect(outcome.explanation).toBe("1 of 2 URLs in the text are not valid URLs.");
    expect(outcome.explanation).not.toContain("secret");
  });

  it("only_https fails plain http URLs", () => {
    expect(run({ only_https: true }, "http://example.com").verdict).toBe(false);
    expect(run({ only_https: true }, "https://example.com").verdict).toBe(true);
  });
});
