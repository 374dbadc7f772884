import { describe, expect, it } from "vitest";
import { assignmentUnit, chooseVariant, hashPoint } from "./assignment.ts";

const variants = [
  { name: "control", weight: 3 },
  { name: "treatment", weight: 1 },
];

describe("assignment", () => {
  it("hashes to [0, 1), the same text to the same point (a fixed vector guards against a changed hash)", () => {
    expect(hashPoint("")).toBe(hashPoint(""));
    for (const text of ["a", "user:alice", "x".repeat(10_000)]) {
      const point = hashPoint(text);
      expect(point).toBeGreaterThanOrEqual(0);
      expect(point).toBeLessThan(1);
    }
    // Every replica, old or new, must put a unit where it was.
    expect(hashPoint("experiment\u0000user:alice")).toBeCloseTo(0.0821527161, 9);
  });

  it("splits units by weight, evenly enough, and independently per experiment", () => {
    const counts = { control: 0, treatment: 0 };
    let same = 0;
    for (let i = 0; i < 40_000; i++) {
      const unit = `user:u${i}`;
      const first = chooseVariant("exp-1", unit, variants)!;
      counts[first.name as keyof typeof counts] += 1;
      if (chooseVariant("exp-2", unit, variants)!.name === first.name) same += 1;
    }
    // 3:1, within about four standard deviations (sd ≈ 87 of 10,000).
    expect(Math.abs(counts.treatment - 10_000)).toBeLessThan(350);
    // Independent splits agree on 3/4·3/4 + 1/4·1/4 = 62.5 % of units.
    expect(Math.abs(same / 40_000 - 0.625)).toBeLessThan(0.015);
  });

  it("never picks a variant of weight 0, and is null when no weight is above 0", () => {
    const zero = [{ name: "off", weight: 0 }, { name: "on", weight: 2 }];
    for (let i = 0; i < 1_000; i++) expect(chooseVariant("e", `request:${i}`, zero)?.name).toBe("on");
    expect(chooseVariant("e", "u", [{ name: "a", weight: 0 }, { name: "b", weight: 0 }])).toBeNull();
  });

  it("falls back from user to trace to request", () => {
    expect(assignmentUnit("user", { endUser: "alice", traceId: "t", logId: "l" })).toBe("user:alice");
    expect(assignmentUnit("user", { endUser: null, traceId: "t", logId: "l" })).toBe("trace:t");
    expect(assignmentUnit("trace", { endUser: "alice", traceId: null, logId: "l" })).toBe("request:l");
    expect(assignmentUnit("request", { endUser: "alice", traceId: "t", logId: "l" })).toBe("request:l");
  });
});
