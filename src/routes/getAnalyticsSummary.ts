import { getAnalyticsSummaryRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { resolveRange } from "../analytics/analytics-range.ts";
import { summaryView } from "../analytics/analytics-views.ts";
import { logSelection } from "../logging/log-filter-query.ts";

export function registerGetAnalyticsSummary(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(getAnalyticsSummaryRoute, async (c) => {
    const query = c.req.valid("query");
    const range = resolveRange(query);
    if (!range.ok) throw range.error;
    const selection = { ...logSelection(c.get("auth").workspaceId, query, c.req.url), ...range.value };
    const aggregates = await deps.store.analytics.aggregate(selection, { kind: "total" });
    return c.json(summaryView(range.value, aggregates.get("")), 200);
  });
}
