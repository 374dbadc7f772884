import type { Experiment } from "../generated/schemas.gen.ts";
import { controlOf, type ExperimentRecord } from "../records/experiment.ts";
import { keyIdOf } from "./views.ts";

export function experimentView(record: ExperimentRecord): Experiment {
  return {
    id: record.id,
    object: "experiment",
    name: record.name,
    description: record.description,
    status: record.status,
    assignment: record.assignment,
    prompt_id: record.promptId,
    variants: [...record.variants],
    control: controlOf(record).name,
    guards: [...record.guards],
    alpha: record.alpha,
    started_at: record.startedAt,
    stopped_at: record.stoppedAt,
    concluded_at: record.concludedAt,
    stop_reason: record.stopReason,
    promoted_variant: record.promotedVariant,
    organisation_id: record.organisationId,
    workspace_id: record.workspaceId,
    owner_id: keyIdOf(record.ownerId),
    updated_by: keyIdOf(record.updatedBy),
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}
