import { updateExperimentRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { experimentSubject } from "../audit/audit-subjects.ts";
import { experimentView } from "../control-plane/experiment-view.ts";
import { GatewayError } from "../errors.ts";
import { checkedGuards, checkedVariants } from "../experiments/experiment-fields.ts";
import { isoNow } from "../lib/ids.ts";
import type { AuditAction } from "../records/audit-event.ts";
import type { ExperimentRecord } from "../records/experiment.ts";
import type { ExperimentChange } from "../store/experiments-repository.ts";
import { experimentStoppedEvent } from "../webhooks/experiment-events.ts";

/** Fields that shape the split: changed under way, they would move users between variants. */
const DRAFT_ONLY = ["variants", "assignment", "prompt_id"] as const;
const FIELDS = ["name", "description", "guards", "alpha", ...DRAFT_ONLY, "status"] as const;

export function registerUpdateExperiment(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(updateExperimentRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    if (!FIELDS.some((field) => body[field] !== undefined)) {
      throw new GatewayError("invalid_request", `The body must set at least one of: ${FIELDS.join(", ")}.`, { param: "body" });
    }
    const at = isoNow();
    const current = await deps.store.experiments.get(auth.workspaceId, id);
    if (!current) throw new GatewayError("not_found", `No experiment ${id} in this workspace.`, { param: "id" });
    const status = statusChange(current, body.status, at);
    const action: AuditAction = status.status === "running" ? "experiment.started" : status.status === "stopped" ? "experiment.stopped" : "experiment.updated";
    const changed = await auditedChange(c, deps.store, action, experimentSubject, async (tx) => {
      const before = await tx.experiments.get(auth.workspaceId, id);
      if (!before) throw new GatewayError("not_found", `No experiment ${id} in this workspace.`, { param: "id" });
      if (before.status === "concluded") {
        throw new GatewayError("invalid_request", `Experiment ${id} is concluded: it no longer changes.`, { param: FIELDS.find((field) => body[field] !== undefined) });
      }
      const draftOnly = DRAFT_ONLY.find((field) => body[field] !== undefined);
      if (draftOnly && before.status !== "draft") {
        throw new GatewayError("invalid_request", `${draftOnly} changes only while the experiment is a draft (it is ${before.status}).`, { param: draftOnly });
      }
      const change: ExperimentChange = { updatedBy: auth.keyId, at, ...status };
      if (body.name !== undefined) change.name = body.name;
      if (body.description !== undefined) change.description = body.description;
      if (body.guards !== undefined) change.guards = checkedGuards(body.guards);
      if (body.alpha !== undefined) change.alpha = body.alpha;
      if (body.assignment !== undefined) change.assignment = body.assignment;
      if (body.prompt_id !== undefined) change.promptId = body.prompt_id;
      const promptId = change.promptId === undefined ? before.promptId : change.promptId;
      // The variants are checked again on start: a virtual key or label may have gone since the draft was saved.
      if (body.variants !== undefined || body.prompt_id !== undefined || status.status === "running") {
        change.variants = await checkedVariants(tx, auth.workspaceId, body.variants ?? before.variants, promptId);
      }
      // Only from the status the change was planned on: a guard that stopped it meanwhile wins.
      const after = await tx.experiments.update(auth.workspaceId, id, change, [current.status]);
      if (!after) throw new GatewayError("invalid_request", `Experiment ${id} changed status meanwhile: read it and try again.`, { param: "status" });
      return { before, after };
    });
    const after = changed!.after!;
    deps.controlPlane.forget("experiment", auth.workspaceId, id);
    if (status.status === "stopped") void deps.webhooks.events.emit(experimentStoppedEvent(after));
    return c.json(experimentView(after), 200);
  });
}

/** The status fields of a transition: start or resume, stop by hand, or nothing for the status it already has. */
function statusChange(before: ExperimentRecord, status: "running" | "stopped" | undefined, at: string): Partial<ExperimentChange> {
  if (status === undefined || status === before.status) return {};
  if (before.status === "concluded") throw new GatewayError("invalid_request", "A concluded experiment no longer changes.", { param: "status" });
  if (status === "running") return { status, startedAt: before.startedAt ?? at, stoppedAt: null, stopReason: null };
  if (before.status !== "running") throw new GatewayError("invalid_request", `Only a running experiment stops (it is ${before.status}).`, { param: "status" });
  return {
    status,
    stoppedAt: at,
    stopReason: { kind: "manual", at, metric: null, variant: null, detail: "Stopped by an admin.", difference: null, low: null, high: null, tolerance: null },
  };
}
