import { MODELS } from "./fill.ts";

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * Every log query of the dashboard and the API, as [name, path]: the logs page with each of its
 * filters, summaries, time series and groups over 30 days and 24 hours. Ranges end at `end`
 * (a minute, not an hour: so their edges are partial hours and days, as a user's are).
 */
export function dashboardQueries(end: number): Array<[string, string]> {
  const iso = (ms: number) => new Date(ms).toISOString();
  const month = `from=${iso(end - 30 * DAY_MS)}&to=${iso(end)}`;
  const day = `from=${iso(end - DAY_MS)}&to=${iso(end)}`;
  const [provider, model] = MODELS[3]!;
  const [, rareModel] = MODELS[29]!;
  return [
    ["logs page, unfiltered", "/v1/logs"],
    ["logs page, user (busy)", "/v1/logs?user=user-0"],
    ["logs page, user (rare)", "/v1/logs?user=user-9990"],
    ["logs page, model", `/v1/logs?model=${model}`],
    ["logs page, model (rare)", `/v1/logs?model=${rareModel}`],
    ["logs page, provider", `/v1/logs?provider=${provider}`],
    ["logs page, status 500", "/v1/logs?status=500"],
    ["logs page, status class 4xx", "/v1/logs?status_class=4xx"],
    ["logs page, success=false", "/v1/logs?success=false"],
    ["logs page, virtual key", "/v1/logs?virtual_key_id=vk-3"],
    ["logs page, metadata[team] (declared)", "/v1/logs?metadata[team]=team-7"],
    ["logs page, metadata[feature] (undeclared)", "/v1/logs?metadata[feature]=feature-30"],
    ["logs page, metadata[env] + model", `/v1/logs?metadata[env]=staging&model=${model}`],
    ["logs page, last 24 h", `/v1/logs?${day}`],
    ["logs page, min latency 5 s", "/v1/logs?min_latency_ms=5000"],
    ["summary 30 d", `/v1/analytics/summary?${month}`],
    ["summary 30 d, model", `/v1/analytics/summary?${month}&model=${model}`],
    ["summary 30 d, user", `/v1/analytics/summary?${month}&user=user-0`],
    ["summary 30 d, metadata[team]", `/v1/analytics/summary?${month}&metadata[team]=team-7`],
    ["summary 24 h", "/v1/analytics/summary"],
    ["summary 24 h, metadata[team]", `/v1/analytics/summary?${day}&metadata[team]=team-7`],
    ["timeseries 30 d, day", `/v1/analytics/timeseries?${month}`],
    ["timeseries 30 d, day, model", `/v1/analytics/timeseries?${month}&model=${model}`],
    ["timeseries 7 d, hour", `/v1/analytics/timeseries?from=${iso(end - 7 * DAY_MS)}&to=${iso(end)}`],
    ["timeseries 24 h, hour", `/v1/analytics/timeseries?${day}`],
    ["timeseries 2 h, minute", `/v1/analytics/timeseries?from=${iso(end - 2 * HOUR_MS)}&to=${iso(end)}`],
    ["groups 30 d by user", `/v1/analytics/groups?${month}&by=user`],
    ["groups 30 d by model", `/v1/analytics/groups?${month}&by=model`],
    ["groups 30 d by provider", `/v1/analytics/groups?${month}&by=provider`],
    ["groups 30 d by virtual_key_id", `/v1/analytics/groups?${month}&by=virtual_key_id`],
    ["groups 30 d by status", `/v1/analytics/groups?${month}&by=status`],
    ["groups 30 d by metadata team (declared)", `/v1/analytics/groups?${month}&by=metadata&metadata_key=team`],
    ["groups 30 d by metadata feature (undeclared)", `/v1/analytics/groups?${month}&by=metadata&metadata_key=feature`],
    ["groups 24 h by user", `/v1/analytics/groups?${day}&by=user`],
    ["groups 24 h by model", `/v1/analytics/groups?${day}&by=model`],
    ["groups 24 h by metadata team (declared)", `/v1/analytics/groups?${day}&by=metadata&metadata_key=team`],
  ];
}
