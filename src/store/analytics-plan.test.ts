import { describe, expect, it } from "vitest";
import { chooseRollup, splitByPeriods } from "./analytics-plan.ts";

const ws = { workspaceId: "ws" };

describe("chooseRollup", () => {
  it.each([
    ["no filter, total", {}, { kind: "total" }, { dim: "all" }],
    ["success only, hourly", { success: false }, { kind: "time", interval: "hour" }, { dim: "all" }],
    ["one model, daily", { model: "m" }, { kind: "time", interval: "day" }, { dim: "model", value: "=m" }],
    ["a status", { status: 429 }, { kind: "total" }, { dim: "status", value: "=429" }],
    ["by user", {}, { kind: "group", by: "user" }, { dim: "user" }],
    ["by provider within a provider", { provider: "p" }, { kind: "group", by: "provider" }, { dim: "provider", value: "=p" }],
  ] as const)("uses the rollups for %s", (_name, filters, slice, expected) => {
    expect(chooseRollup({ ...ws, ...filters }, slice)).toEqual(expected);
  });

  it.each([
    ["minute buckets", {}, { kind: "time", interval: "minute" }],
    ["hourly buckets of a user (users are summed per day)", { user: "u" }, { kind: "time", interval: "hour" }],
    ["two dimensions", { user: "u", model: "m" }, { kind: "total" }],
    ["grouping by one dimension, filtering another", { model: "m" }, { kind: "group", by: "user" }],
    ["a metadata filter", { metadata: { team: "a" } }, { kind: "total" }],
    ["a trace", { traceId: "t" }, { kind: "total" }],
    ["a prompt", { promptId: "p" }, { kind: "group", by: "model" }],
    ["grouping by metadata", {}, { kind: "group", by: "metadata", metadataKey: "team" }],
  ] as const)("reads the raw rows for %s", (_name, filters, slice) => {
    expect(chooseRollup({ ...ws, ...filters }, slice)).toBeNull();
  });
});

describe("splitByPeriods", () => {
  it("cuts whole hours from the partial ones at the ends", () => {
    expect(splitByPeriods({ from: "2026-01-01T10:30:00.000Z", to: "2026-01-01T13:15:00.000Z" }, "hour")).toEqual({
      hours: { from: "2026-01-01T11:00:00.000Z", to: "2026-01-01T13:00:00.000Z" },
      edges: [
        { from: "2026-01-01T10:30:00.000Z", to: "2026-01-01T11:00:00.000Z" },
        { from: "2026-01-01T13:00:00.000Z", to: "2026-01-01T13:15:00.000Z" },
      ],
    });
  });

  it("leaves a range without a whole period to the raw rows", () => {
    const range = { from: "2026-01-01T10:30:00.000Z", to: "2026-01-02T09:00:00.000Z" };
    expect(splitByPeriods(range, "day")).toEqual({ hours: null, edges: [range] });
    expect(splitByPeriods({ from: "2026-01-01T00:00:00.000Z", to: "2026-01-03T00:00:00.000Z" }, "day").edges).toEqual([]);
  });
});
