import { describe, expect, it } from "vitest";
import { completionTokenBound, promptTokenBound, toUnits, toUsd, worstCaseUnits } from "./estimate.ts";
import { secondsUntil, windowSlots } from "./windows.ts";

const none = { requestsPerMinute: null, requestsPerHour: null, requestsPerDay: null, tokensPerMinute: null, tokensPerHour: null, tokensPerDay: null };

describe("rate windows", () => {
  it("aligns each window to UTC and leaves out windows without a limit", () => {
    const now = Date.parse("2026-03-10T10:17:42.500Z");
    const slots = windowSlots({ ...none, requestsPerMinute: 5, tokensPerDay: 1000 }, now);
    expect(slots).toEqual([
      { name: "minute", requestLimit: 5, tokenLimit: null, startMs: Date.parse("2026-03-10T10:17:00Z"), endMs: Date.parse("2026-03-10T10:18:00Z") },
      { name: "day", requestLimit: null, tokenLimit: 1000, startMs: Date.parse("2026-03-10T00:00:00Z"), endMs: Date.parse("2026-03-11T00:00:00Z") },
    ]);
    expect(windowSlots({ ...none, requestsPerHour: 1 }, now)[0]!.startMs).toBe(Date.parse("2026-03-10T10:00:00Z"));
  });

  it("retries after whole seconds, never 0", () => {
    expect(secondsUntil(10_000, 8_500)).toBe(2);
    expect(secondsUntil(10_000, 10_000)).toBe(1);
  });
});

describe("reservation maths", () => {
  it("bounds the prompt by the body's UTF-8 bytes and the completion by the request's cap, times n", () => {
    const raw = JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "héllo" }] });
    expect(promptTokenBound({ kind: "json", value: JSON.parse(raw) as Record<string, unknown>, raw })).toBe(Buffer.byteLength(raw));
    expect(promptTokenBound({ kind: "none" })).toBe(0);
    const json = (value: Record<string, unknown>) => ({ kind: "json" as const, value });
    expect(completionTokenBound(json({ max_completion_tokens: 50, max_tokens: 900 }), 4096)).toBe(50);
    expect(completionTokenBound(json({ max_tokens: 70, n: 3 }), 4096)).toBe(210);
    expect(completionTokenBound(json({ max_output_tokens: 12 }), 4096)).toBe(12);
    expect(completionTokenBound(json({ max_tokens: "lots" }), 4096)).toBe(4096);
  });

  it("prices the worst case with the log's price table; an unpriced model reserves nothing", () => {
    // gpt-4o: $2.5 in, $10 out per million tokens.
    expect(toUsd(worstCaseUnits("openai", "gpt-4o", 1000, 500))).toBeCloseTo(0.0025 + 0.005, 12);
    expect(worstCaseUnits("openai", "no-such-model", 1000, 500)).toBe(0);
    expect(worstCaseUnits("openai", null, 1000, 500)).toBe(0);
  });

  it("counts in exact integer units of 1e-10 USD", () => {
    expect(toUnits(0.1) + toUnits(0.2)).toBe(toUnits(0.3));
    expect(toUnits(-1)).toBe(0);
    expect(toUnits(Number.NaN)).toBe(0);
  });
});
