import { deleteExperimentRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { experimentSubject } from "../audit/audit-subjects.ts";
import { GatewayError } from "../errors.ts";

export function registerDeleteExperiment(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(deleteExperimentRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const deleted = await auditedChange(c, deps.store, "experiment.deleted", experimentSubject, async (tx) => {
      const before = await tx.experiments.get(auth.workspaceId, id);
      if (!before) return undefined;
      // Its traffic would change at once, unannounced: a running experiment is stopped first.
      if (before.status === "running") throw new GatewayError("invalid_request", `Experiment ${id} is running: stop it first.`, { param: "id" });
      return (await tx.experiments.delete(auth.workspaceId, id)) ? { before } : undefined;
    });
    if (!deleted) throw new GatewayError("not_found", `No experiment ${id} in this workspace.`, { param: "id" });
    deps.controlPlane.forget("experiment", auth.workspaceId, id);
    return c.json({ id, object: "experiment", deleted: true }, 200);
  });
}
