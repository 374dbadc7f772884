import { describe, expect, it } from "vitest";
import { keyPeriodOf, keyPeriodSpec, type BudgetPeriodSpec } from "../records/budget.ts";
import { PeriodCache, periodBounds, rollingRowBucket, rollingRowKey } from "./periods.ts";
import { isTimeZone, localDayHours, startOfLocalDay } from "../lib/zoned-time.ts";

const at = (iso: string) => Date.parse(iso);
const calendar = (unit: "day" | "week" | "month", timeZone = "UTC", weekStart: "monday" | "sunday" = "monday"): BudgetPeriodSpec => ({ type: "calendar", unit, timeZone, weekStart });

describe("budget periods in UTC (a key's own budget)", () => {
  it("a daily period runs from 00:00 UTC to the next, whatever the time of day", () => {
    const bounds = periodBounds(keyPeriodSpec("daily"), at("2026-03-10T23:59:59.999Z"));
    expect(bounds.start).toBe("2026-03-10T00:00:00.000Z");
    expect(bounds.resetsAt).toEqual(new Date("2026-03-11T00:00:00.000Z"));
    expect(periodBounds(keyPeriodSpec("daily"), at("2026-03-11T00:00:00.000Z")).start).toBe("2026-03-11T00:00:00.000Z");
  });

  it("a weekly period starts on Monday (ISO week), Sunday included in the week before", () => {
    // 2026-03-08 is a Sunday, 2026-03-09 a Monday.
    expect(periodBounds(keyPeriodSpec("weekly"), at("2026-03-08T12:00:00Z")).start).toBe("2026-03-02T00:00:00.000Z");
    expect(periodBounds(keyPeriodSpec("weekly"), at("2026-03-08T12:00:00Z")).resetsAt).toEqual(new Date("2026-03-09T00:00:00.000Z"));
    expect(periodBounds(keyPeriodSpec("weekly"), at("2026-03-09T00:00:00Z")).start).toBe("2026-03-09T00:00:00.000Z");
    expect(periodBounds(keyPeriodSpec("weekly"), at("2026-03-15T23:59:59Z")).start).toBe("2026-03-09T00:00:00.000Z");
  });

  it("a monthly period starts on the first and ends at the next month's, across years and leap days", () => {
    expect(periodBounds(keyPeriodSpec("monthly"), at("2024-02-29T18:00:00Z")).start).toBe("2024-02-01T00:00:00.000Z");
    expect(periodBounds(keyPeriodSpec("monthly"), at("2024-02-29T18:00:00Z")).resetsAt).toEqual(new Date("2024-03-01T00:00:00.000Z"));
    expect(periodBounds(keyPeriodSpec("monthly"), at("2026-12-31T23:59:59Z")).resetsAt).toEqual(new Date("2027-01-01T00:00:00.000Z"));
  });

  it("period none never resets, and the key periods map both ways", () => {
    expect(periodBounds(keyPeriodSpec("none"), at("2026-03-10T10:00:00Z"))).toEqual({ start: "none", startMs: null, resetsAt: null, rolling: null });
    for (const period of ["none", "daily", "weekly", "monthly"] as const) expect(keyPeriodOf(keyPeriodSpec(period))).toBe(period);
    expect(keyPeriodOf(calendar("month", "Europe/Berlin"))).toBeNull();
    expect(keyPeriodOf({ type: "rolling", unit: "hour", count: 5 })).toBeNull();
  });
});

describe("calendar periods in a time zone", () => {
  it("a month in New York starts at local midnight, and across the spring-forward change lasts an hour less", () => {
    // 2026-03-08 02:00 EST becomes 03:00 EDT: March is 31 days less one hour.
    const march = periodBounds(calendar("month", "America/New_York"), at("2026-03-20T12:00:00Z"));
    expect(march.start).toBe("2026-03-01T05:00:00.000Z");
    expect(march.resetsAt).toEqual(new Date("2026-04-01T04:00:00.000Z"));
    expect(march.resetsAt!.getTime() - march.startMs!).toBe((31 * 24 - 1) * 3_600_000);
    // Still February in New York, though March in UTC.
    expect(periodBounds(calendar("month", "America/New_York"), at("2026-03-01T04:59:59Z")).start).toBe("2026-02-01T05:00:00.000Z");
  });

  it("a day in Berlin across the autumn change lasts 25 hours, the spring one 23", () => {
    expect(localDayHours({ year: 2026, month: 10, day: 25 }, "Europe/Berlin")).toBe(25);
    expect(localDayHours({ year: 2026, month: 3, day: 29 }, "Europe/Berlin")).toBe(23);
    const day = periodBounds(calendar("day", "Europe/Berlin"), at("2026-10-25T12:00:00Z"));
    expect(day.start).toBe("2026-10-24T22:00:00.000Z");
    expect(day.resetsAt).toEqual(new Date("2026-10-25T23:00:00.000Z"));
  });

  it("a midnight that daylight saving skips starts its day when the clocks jump (Santiago, September)", () => {
    // America/Santiago moves 2026-09-06 00:00 -04 to 01:00 -03: local midnight does not exist.
    const start = startOfLocalDay({ year: 2026, month: 9, day: 6 }, "America/Santiago");
    expect(new Date(start).toISOString()).toBe("2026-09-06T04:00:00.000Z");
    expect(localDayHours({ year: 2026, month: 9, day: 6 }, "America/Santiago")).toBe(23);
  });

  it("weeks start on the day the budget says, in its zone", () => {
    // 2026-03-08 is a Sunday; in Tokyo (+09) 2026-03-07T16:00Z is already Sunday.
    expect(periodBounds(calendar("week", "Asia/Tokyo", "sunday"), at("2026-03-07T16:00:00Z")).start).toBe("2026-03-07T15:00:00.000Z");
    expect(periodBounds(calendar("week", "Asia/Tokyo", "monday"), at("2026-03-07T16:00:00Z")).start).toBe("2026-03-01T15:00:00.000Z");
  });

  it("knows IANA zones and refuses others", () => {
    expect(isTimeZone("Europe/Berlin")).toBe(true);
    expect(isTimeZone("UTC")).toBe(true);
    expect(isTimeZone("Mars/Olympus_Mons")).toBe(false);
    expect(isTimeZone("")).toBe(false);
  });

  it("the period cache reuses a period's bounds within it and moves on at its end", () => {
    const spec = calendar("day", "Europe/Berlin");
    const cache = new PeriodCache();
    const first = cache.bounds(spec, at("2026-10-25T12:00:00Z"));
    expect(cache.bounds(spec, at("2026-10-25T22:59:59Z"))).toBe(first);
    expect(cache.bounds(spec, at("2026-10-25T23:00:00Z")).start).toBe("2026-10-25T23:00:00.000Z");
  });
});

describe("rolling windows", () => {
  it("a window of 6 hours counts 60 buckets of 6 minutes and the one its start falls in", () => {
    const bounds = periodBounds({ type: "rolling", unit: "hour", count: 6 }, at("2026-03-10T10:07:30Z"));
    expect(bounds.start).toBe("rolling");
    expect(bounds.rolling).toEqual({
      windowMs: 6 * 3_600_000,
      bucketMs: 360_000,
      bucketStartMs: at("2026-03-10T10:06:00Z"),
      cutMs: at("2026-03-10T04:06:00Z"),
    });
  });

  it("a stored bucket's key reads back as its start", () => {
    const key = rollingRowKey(at("2026-03-10T10:06:00Z"));
    expect(key).toBe("r:2026-03-10T10:06:00.000Z");
    expect(rollingRowBucket(key)).toBe(at("2026-03-10T10:06:00Z"));
    expect(rollingRowBucket("2026-03-10T00:00:00.000Z")).toBeNull();
  });
});
