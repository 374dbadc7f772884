import { describe, expect, it } from "vitest";
import type { AnalyticsSlice } from "../analytics/aggregate.ts";
import type { LogFilterSet } from "../store/log-filters.ts";
import { chooseClickHouseRollup, hoursOfPartialDays, rankingRollup } from "./clickhouse-rollup-plan.ts";

const base: LogFilterSet = { workspaceId: "ws" };
const total: AnalyticsSlice = { kind: "total" };

describe("which ClickHouse rollup answers an analytics query", () => {
  it("reads one dimension's hourly rows for a total, a series, or one filtered or grouped dimension", () => {
    expect(chooseClickHouseRollup(base, total)).toMatchObject({ table: "log_rollups_hourly_dims", filters: [["dim", "all"]] });
    expect(chooseClickHouseRollup(base, { kind: "time", interval: "day" })).toMatchObject({ table: "log_rollups_hourly_dims", filters: [["dim", "all"]] });
    expect(chooseClickHouseRollup({ ...base, model: "m", success: false }, total)).toMatchObject({
      table: "log_rollups_hourly_dims",
      filters: [["dim", "model"], ["value", "=m"]],
    });
    expect(chooseClickHouseRollup({ ...base, status: 429 }, { kind: "group", by: "status" })).toMatchObject({
      table: "log_rollups_hourly_dims",
      filters: [["dim", "status"], ["value", "=429"]],
    });
  });

  it("reads the combinations for several dimensions, and daily user rows for end users", () => {
    expect(chooseClickHouseRollup({ ...base, provider: "openai" }, { kind: "group", by: "model" })).toMatchObject({
      table: "log_rollups_hourly",
      filters: [["provider_key", "=openai"]],
    });
    expect(chooseClickHouseRollup({ ...base, model: "m", status: 200 }, total)).toMatchObject({ table: "log_rollups_hourly", filters: [["model_key", "=m"], ["status", 200]] });
    expect(chooseClickHouseRollup({ ...base, user: "u" }, { kind: "time", interval: "day" })).toMatchObject({ table: "log_rollups_user_days" });
    expect(chooseClickHouseRollup(base, { kind: "group", by: "user" })).toMatchObject({ table: "log_rollups_user_days", filters: [] });
  });

  it("reads end users' hour rows for an hourly series, and for the whole hours of a user query's partial days", () => {
    const hourly = chooseClickHouseRollup({ ...base, user: "u" }, { kind: "time", interval: "hour" });
    expect(hourly).toMatchObject({ table: "log_rollups_user_hours", period: "hour", filters: [["end_user_key", "=u"]] });
    expect(hourly?.key({ kind: "time", interval: "hour" })).toBe("hour * 3600000");
    expect(hourly?.toTime(7_200)).toBe("2");
    const daily = chooseClickHouseRollup({ ...base, user: "u" }, total)!;
    expect(hoursOfPartialDays(daily)).toMatchObject({ table: "log_rollups_user_hours", filters: [["end_user_key", "=u"]] });
    expect(hoursOfPartialDays(chooseClickHouseRollup(base, { kind: "group", by: "user" })!)?.key({ kind: "time", interval: "day" })).toBe("intDiv(hour, 24) * 86400000");
    expect(hoursOfPartialDays(chooseClickHouseRollup(base, total)!)).toBeNull();
  });

  it("reads the metadata pairs' hourly rows for one metadata filter or a group by a metadata key", () => {
    expect(chooseClickHouseRollup({ ...base, metadata: { team: "a" }, success: true }, total)).toMatchObject({
      table: "log_rollups_hourly_meta",
      filters: [["key", "team"], ["value", "a"]],
    });
    expect(chooseClickHouseRollup({ ...base, metadata: { team: "a" } }, { kind: "time", interval: "hour" })?.withoutKey).toBeUndefined();
    expect(chooseClickHouseRollup(base, { kind: "group", by: "metadata", metadataKey: "team" })).toMatchObject({
      table: "log_rollups_hourly_meta",
      filters: [["key", "team"]],
      withoutKey: "team",
    });
    expect(chooseClickHouseRollup({ ...base, metadata: { team: "a" } }, { kind: "group", by: "metadata", metadataKey: "team" })).toMatchObject({
      filters: [["key", "team"], ["value", "a"]],
    });
  });

  it("leaves to the raw rows what no rollup keeps", () => {
    const raw: Array<[LogFilterSet, AnalyticsSlice]> = [
      [{ ...base, metadata: { team: "a", env: "prod" } }, total],
      [{ ...base, metadata: { team: "a" }, model: "m" }, total],
      [{ ...base, metadata: { team: "a" } }, { kind: "group", by: "model" }],
      [{ ...base, metadata: { team: "a" } }, { kind: "group", by: "metadata", metadataKey: "env" }],
      [{ ...base, user: "u" }, { kind: "group", by: "metadata", metadataKey: "team" }],
      [{ ...base, metadata: { team: "a" } }, { kind: "time", interval: "minute" }],
      [base, { kind: "time", interval: "minute" }],
      [{ ...base, traceId: "t" }, total],
      [{ ...base, cacheStatus: "HIT" }, total],
      [{ ...base, minLatencyMs: 5 }, total],
      [{ ...base, user: "u", model: "m" }, total],
      [{ ...base, user: "u" }, { kind: "group", by: "model" }],
    ];
    for (const [selection, slice] of raw) expect(chooseClickHouseRollup(selection, slice)).toBeNull();
  });

  it("ranks end users' hours from their plain counts under the same filters, other groups from their own rollup", () => {
    const byUser: AnalyticsSlice = { kind: "group", by: "user", limit: 20 };
    const days = chooseClickHouseRollup({ ...base, success: false }, byUser)!;
    expect(rankingRollup(days)).toBe(days);
    const hours = hoursOfPartialDays(chooseClickHouseRollup({ ...base, user: "u" }, byUser)!)!;
    expect(rankingRollup(hours)).toMatchObject({ table: "log_user_hours", period: "hour", groupColumn: "end_user_key", filters: [["end_user_key", "=u"]], rankingOnly: true });
    const models = chooseClickHouseRollup(base, { kind: "group", by: "model", limit: 20 })!;
    expect(rankingRollup(models)).toBe(models);
  });
});
