import { getExperimentRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { experimentView } from "../control-plane/experiment-view.ts";
import { GatewayError } from "../errors.ts";

export function registerGetExperiment(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(getExperimentRoute, async (c) => {
    const { id } = c.req.valid("param");
    const experiment = await deps.store.experiments.get(c.get("auth").workspaceId, id);
    if (!experiment) throw new GatewayError("not_found", `No experiment ${id} in this workspace.`, { param: "id" });
    return c.json(experimentView(experiment), 200);
  });
}
