import { listExperimentsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { experimentView } from "../control-plane/experiment-view.ts";

export function registerListExperiments(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(listExperimentsRoute, async (c) => {
    const { status } = c.req.valid("query");
    const data = (await deps.store.experiments.list(c.get("auth").workspaceId, status)).map(experimentView);
    return c.json({ object: "list" as const, total: data.length, data }, 200);
  });
}
