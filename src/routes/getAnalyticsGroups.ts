import { getAnalyticsGroupsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { resolveRange } from "../analytics/analytics-range.ts";
import { compareGroups, groupView } from "../analytics/analytics-views.ts";
import { GatewayError } from "../errors.ts";
import { logFiltersOf } from "../logging/log-filter-query.ts";

export function registerGetAnalyticsGroups(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(getAnalyticsGroupsRoute, async (c) => {
    const query = c.req.valid("query");
    const { by, metadata_key: metadataKey } = query;
    if (by === "metadata" && metadataKey === undefined) {
      throw new GatewayError("invalid_request", "metadata_key is required with by=metadata.", { param: "metadata_key" });
    }
    if (by !== "metadata" && metadataKey !== undefined) {
      throw new GatewayError("invalid_request", "metadata_key is only allowed with by=metadata.", { param: "metadata_key" });
    }
    const range = resolveRange(query);
    if (!range.ok) throw range.error;
    const selection = { ...logFiltersOf(query, c.req.url, c.get("auth").workspaceId), ...range.value };
    const limit = query.limit ?? 20;
    const aggregates = await deps.store.analytics.aggregate(selection, { kind: "group", by, metadataKey, limit });
    const groups = [...aggregates].map(([key, aggregate]) => groupView(key, aggregate)).sort(compareGroups);
    return c.json(
      {
        object: "analytics.groups" as const,
        by,
        ...(metadataKey === undefined ? {} : { metadata_key: metadataKey }),
        ...range.value,
        data: groups.slice(0, limit),
      },
      200,
    );
  });
}
