import { getAnalyticsDimensionsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { analyticsDimensionsView } from "../control-plane/views.ts";

export function registerGetAnalyticsDimensions(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(getAnalyticsDimensionsRoute, async (c) => {
    const dimensions = await deps.store.analyticsDimensions.list(c.get("auth").workspaceId);
    return c.json(analyticsDimensionsView(dimensions), 200);
  });
}
