import { describe, expect, it } from "vitest";
import { runSync } from "../testing.ts";
import { detectPii, luhn, pii, redactPii } from "./pii.ts";

const run = (params: Record<string, unknown>, text: string) => runSync(pii, params, { text });

describe("luhn", () => {
  it("accepts valid checksums and refuses others", () => {
    expect(luhn("4111111111111111")).toBe(true);
    expect(luhn("4111111111111112")).toBe(false);
  });
});

describe("detectPii", () => {
  it("finds emails", () => {
    expect(detectPii("write to jane.doe+x@mail.example.co.uk today")).toEqual({ email: 1 });
    expect(detectPii("not an email: a@b, @handle, x@y.z1")).toEqual({});
  });

  it("finds formatted phone numbers", () => {
    expect(detectPii("call +44 20 7946 0958 or (555) 123-4567 or 555.123.4567")).toEqual({ phone: 3 });
    expect(detectPii("+1 (555) 123-4567")).toEqual({ phone: 1 });
    expect(detectPii("version 2024-01-15, room 12, +49")).toEqual({});
  });

  it("finds Luhn-valid card numbers only", () => {
    expect(detectPii("card 4111 1111 1111 1111")).toEqual({ credit_card: 1 });
    expect(detectPii("card 4111-1111-1111-1111 and amex 3782 822463 10005")).toEqual({ credit_card: 2 });
    expect(detectPii("card 5555555555554444")).toEqual({ credit_card: 1 });
    expect(detectPii("order 4111 1111 1111 1112")).toEqual({});
    expect(detectPii("zeros 0000 0000 0000 0000")).toEqual({});
    expect(detectPii("odd grouping 41 1111 1111 1111 11")).toEqual({});
  });

  it("finds IPv4 and IPv6 addresses confirmed by isIP", () => {
    expect(detectPii("from 203.0.113.7 and 2001:db8::8a2e:370:7334")).toEqual({ ip_address: 2 });
    expect(detectPii("fe80::1 and ::ffff:192.0.2.1")).toEqual({ ip_address: 2 });
    expect(detectPii("version 1.2.3, 999.1.1.1, 10:30:00, std::vector, a::b")).toEqual({});
  });

  it("finds SSNs, UK NI numbers and Canadian SINs, conservatively", () => {
    expect(detectPii("SSN 123-45-6789")).toEqual({ national_id: 1 });
    expect(detectPii("bad areas 000-12-3456 666-12-3456 912-34-5678 123-00-4567")).toEqual({});
    expect(detectPii("NI AB 12 34 56 C and JG103759A, not QQ123456C")).toEqual({ national_id: 2 });
    expect(detectPii("NI GB 12 34 56 A, lower ab123456c")).toEqual({});
    expect(detectPii("SIN 130-692-544 and 130 692 544")).toEqual({ national_id: 2 });
    expect(detectPii("SIN 046-454-286, mixed 130-692 544")).toEqual({});
    expect(detectPii("SIN 130-692-545")).toEqual({});
  });

  it("looks only at the chosen categories", () => {
    expect(detectPii("jane@example.com 203.0.113.7", ["ip_address"])).toEqual({ ip_address: 1 });
  });
});

describe("pii", () => {
  it("passes clean text", () => {
    expect(run({}, "The weather is nice today.")).toMatchObject({ verdict: true, data: { categories: [] } });
  });

  it("fails listing categories and counts, never the values", () => {
    const outcome = run({}, "Mail jane@example.com, card 4111 1111 1111 1111.");
    expect(outcome).toMatchObject({ verdict: false, data: { categories: ["email", "credit_card"], counts: { email: 1, credit_card: 1 } } });
    expect(outcome.explanation).toBe("The text contains personal data (email, credit card).");
    expect(JSON.stringify(outcome)).not.toContain("jane");
    expect(JSON.stringify(outcome)).not.toContain("4111");
  });

  it("ignores categories not asked for", () => {
    expect(run({ categories: ["phone"] }, "jane@example.com").verdict).toBe(true);
  });

  it("refuses unknown categories", () => {
    expect(pii.params.safeParse({ categories: ["passport"] }).success).toBe(false);
    expect(pii.params.safeParse({ categories: [] }).success).toBe(false);
  });

  it("scans a long hostile text quickly", () => {
    const started = performance.now();
    run({}, `${"1 ".repeat(30_000)}${"a:".repeat(20_000)}${"x.".repeat(20_000)}`);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe("redactPii", () => {
  it("replaces each value found with its category, once where two patterns overlap, and leaves the rest", () => {
    const text = "Mail ada@example.com or call +44 20 7946 0958; card 4111 1111 1111 1111; ok 12 apples.";
    expect(redactPii(text)).toBe("Mail [REDACTED:email] or call [REDACTED:phone]; card [REDACTED:credit_card]; ok 12 apples.");
    expect(redactPii(text, ["email"])).toBe("Mail [REDACTED:email] or call +44 20 7946 0958; card 4111 1111 1111 1111; ok 12 apples.");
    expect(redactPii("nothing personal")).toBe("nothing personal");
  });
});
