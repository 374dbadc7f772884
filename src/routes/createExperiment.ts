import { createExperimentRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { experimentSubject } from "../audit/audit-subjects.ts";
import { experimentView } from "../control-plane/experiment-view.ts";
import { checkedGuards, checkedVariants, experimentDefaults } from "../experiments/experiment-fields.ts";
import { isoNow, uuidv4 } from "../lib/ids.ts";

export function registerCreateExperiment(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(createExperimentRoute, async (c) => {
    const auth = c.get("auth");
    const body = c.req.valid("json");
    const defaults = experimentDefaults(body);
    const variants = await checkedVariants(deps.store, auth.workspaceId, body.variants, defaults.promptId);
    const changed = await auditedChange(c, deps.store, "experiment.created", experimentSubject, async (tx) => ({
      after: await tx.experiments.create({
        id: uuidv4(),
        name: body.name,
        ...defaults,
        guards: checkedGuards(defaults.guards),
        variants,
        status: "draft",
        startedAt: null,
        stoppedAt: null,
        concludedAt: null,
        stopReason: null,
        promotedVariant: null,
        organisationId: auth.organisationId,
        workspaceId: auth.workspaceId,
        ownerId: auth.keyId,
        updatedBy: auth.keyId,
        createdAt: isoNow(),
      }),
    }));
    if (!changed?.after) throw new Error("a created experiment is always returned");
    return c.json(experimentView(changed.after), 201);
  });
}
