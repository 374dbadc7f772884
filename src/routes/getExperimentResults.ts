import { getExperimentResultsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { GatewayError } from "../errors.ts";
import { experimentResults } from "../experiments/experiment-results.ts";
import { isoNow } from "../lib/ids.ts";

export function registerGetExperimentResults(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(getExperimentResultsRoute, async (c) => {
    const { workspaceId } = c.get("auth");
    const { id } = c.req.valid("param");
    const experiment = await deps.store.experiments.get(workspaceId, id);
    if (!experiment) throw new GatewayError("not_found", `No experiment ${id} in this workspace.`, { param: "id" });
    const totals = await deps.store.experimentOutcomes.variantTotals(workspaceId, id, experiment.startedAt);
    return c.json(experimentResults(experiment, totals, isoNow()), 200);
  });
}
