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

describe("chooseRollup with declared metadata keys", () => {
  const declared = new Map([["team", "2026-01-01T05:00:00.000Z"]]);
  const from = "2026-01-01T05:00:00.000Z";
  it.each([
    ["a declared key's filter", { metadata: { team: "a" } }, { kind: "total" }, { dim: "meta:team", value: "=a", from }],
    ["a declared key's filter, daily", { metadata: { team: "a" } }, { kind: "time", interval: "day" }, { dim: "meta:team", value: "=a", from }],
    ["grouping by a declared key", {}, { kind: "group", by: "metadata", metadataKey: "team" }, { dim: "meta:team", from }],
    ["grouping by a declared key within a value", { metadata: { team: "a" } }, { kind: "group", by: "metadata", metadataKey: "team" }, { dim: "meta:team", value: "=a", from }],
  ] as const)("uses the key's rollups for %s", (_name, filters, slice, expected) => {
    expect(chooseRollup({ ...ws, ...filters }, slice, declared)).toEqual(expected);
  });

  it.each([
    ["an undeclared key", { metadata: { env: "prod" } }, { kind: "total" }],
    ["two keys", { metadata: { team: "a", env: "prod" } }, { kind: "total" }],
    ["a declared key and a model", { metadata: { team: "a" }, model: "m" }, { kind: "total" }],
    ["grouping by a declared key, filtering another key", { metadata: { env: "prod" } }, { kind: "group", by: "metadata", metadataKey: "team" }],
    ["grouping by model within a declared key's value", { metadata: { team: "a" } }, { kind: "group", by: "model" }],
    ["minute buckets of a declared key", { metadata: { team: "a" } }, { kind: "time", interval: "minute" }],
  ] as const)("reads the raw rows for %s", (_name, filters, slice) => {
    expect(chooseRollup({ ...ws, ...filters }, slice, declared)).toBeNull();
  });
});

describe("splitByPeriods", () => {
  it("reads whole periods before builtFrom raw", () => {
    expect(splitByPeriods({ from: "2026-01-01T10:30:00.000Z", to: "2026-01-01T14:15:00.000Z" }, "hour", undefined, "2026-01-01T12:00:00.000Z")).toEqual({
      hours: { from: "2026-01-01T12:00:00.000Z", to: "2026-01-01T14:00:00.000Z" },
      edges: [
        { from: "2026-01-01T10:30:00.000Z", to: "2026-01-01T12:00:00.000Z" },
        { from: "2026-01-01T14:00:00.000Z", to: "2026-01-01T14:15:00.000Z" },
      ],
    });
  });

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
