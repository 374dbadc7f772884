import { describe, expect, it } from "vitest";
import type { AnalyticsSlice } from "../analytics/aggregate.ts";
import type { LogFilterSet } from "../store/log-filters.ts";
import { chooseClickHouseRollup } from "./clickhouse-rollup-plan.ts";

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
    expect(chooseClickHouseRollup({ ...base, user: "u" }, { kind: "time", interval: "day" })).toMatchObject({ table: "log_rollups_daily_users" });
    expect(chooseClickHouseRollup(base, { kind: "group", by: "user" })).toMatchObject({ table: "log_rollups_daily_users", filters: [] });
  });

  it("leaves to the raw rows what no rollup keeps", () => {
    const raw: Array<[LogFilterSet, AnalyticsSlice]> = [
      [{ ...base, metadata: { team: "a" } }, total],
      [base, { kind: "group", by: "metadata", metadataKey: "team" }],
      [base, { kind: "time", interval: "minute" }],
      [{ ...base, traceId: "t" }, total],
      [{ ...base, cacheStatus: "HIT" }, total],
      [{ ...base, minLatencyMs: 5 }, total],
      [{ ...base, user: "u" }, { kind: "time", interval: "hour" }],
      [{ ...base, user: "u", model: "m" }, total],
      [{ ...base, user: "u" }, { kind: "group", by: "model" }],
    ];
    for (const [selection, slice] of raw) expect(chooseClickHouseRollup(selection, slice)).toBeNull();
  });
});
