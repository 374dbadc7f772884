import { describe, expect, it } from "vitest";
import { currentPeriodStarts, periodBounds } from "./periods.ts";

describe("budget periods (UTC)", () => {
  const at = (iso: string) => new Date(iso);

  it("a daily period runs from 00:00 UTC to the next, whatever the time of day", () => {
    expect(periodBounds("daily", at("2026-03-10T23:59:59.999Z"))).toEqual({ start: "2026-03-10T00:00:00.000Z", resetsAt: at("2026-03-11T00:00:00.000Z") });
    expect(periodBounds("daily", at("2026-03-11T00:00:00.000Z")).start).toBe("2026-03-11T00:00:00.000Z");
  });

  it("a weekly period starts on Monday (ISO week), Sunday included in the week before", () => {
    // 2026-03-08 is a Sunday, 2026-03-09 a Monday.
    expect(periodBounds("weekly", at("2026-03-08T12:00:00Z"))).toEqual({ start: "2026-03-02T00:00:00.000Z", resetsAt: at("2026-03-09T00:00:00.000Z") });
    expect(periodBounds("weekly", at("2026-03-09T00:00:00Z")).start).toBe("2026-03-09T00:00:00.000Z");
    expect(periodBounds("weekly", at("2026-03-15T23:59:59Z")).start).toBe("2026-03-09T00:00:00.000Z");
  });

  it("a monthly period starts on the first and ends at the next month's, across years and leap days", () => {
    expect(periodBounds("monthly", at("2024-02-29T18:00:00Z"))).toEqual({ start: "2024-02-01T00:00:00.000Z", resetsAt: at("2024-03-01T00:00:00.000Z") });
    expect(periodBounds("monthly", at("2026-12-31T23:59:59Z")).resetsAt).toEqual(at("2027-01-01T00:00:00.000Z"));
  });

  it("period none never resets", () => {
    expect(periodBounds("none", at("2026-03-10T10:00:00Z"))).toEqual({ start: "none", resetsAt: null });
  });

  it("lists the starts of every current period, to load at startup", () => {
    expect(currentPeriodStarts(at("2026-03-11T10:00:00Z"))).toEqual(["none", "2026-03-11T00:00:00.000Z", "2026-03-09T00:00:00.000Z", "2026-03-01T00:00:00.000Z"]);
  });
});
