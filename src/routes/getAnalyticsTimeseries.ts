import { getAnalyticsTimeseriesRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { bucketStarts, defaultInterval, resolveRange } from "../analytics/analytics-range.ts";
import { timeseriesPointView } from "../analytics/analytics-views.ts";
import { logSelection } from "../logging/log-filter-query.ts";

export function registerGetAnalyticsTimeseries(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(getAnalyticsTimeseriesRoute, async (c) => {
    const query = c.req.valid("query");
    const range = resolveRange(query);
    if (!range.ok) throw range.error;
    const interval = query.interval ?? defaultInterval(range.value);
    const starts = bucketStarts(range.value, interval);
    if (!starts.ok) throw starts.error;
    const selection = { ...logSelection(c.get("auth").workspaceId, query, c.req.url), ...range.value };
    const aggregates = await deps.store.analytics.aggregate(selection, { kind: "time", interval });
    return c.json(
      {
        object: "analytics.timeseries" as const,
        ...range.value,
        interval,
        data: starts.value.map((start) => timeseriesPointView(start, aggregates.get(start))),
      },
      200,
    );
  });
}
