import { controlOf, type ExperimentRecord } from "../records/experiment.ts";
import type { WebhookEvent } from "./webhook-events.ts";

/** `experiment.stopped`: an experiment stopped, by a guard or by hand (once per stop). */
export function experimentStoppedEvent(experiment: ExperimentRecord): WebhookEvent {
  return {
    type: "experiment.stopped",
    workspaceId: experiment.workspaceId,
    dedupKey: `experiment:${experiment.id}:stopped:${experiment.stoppedAt ?? ""}`,
    data: {
      experiment_id: experiment.id,
      name: experiment.name,
      control: controlOf(experiment).name,
      stopped_at: experiment.stoppedAt,
      reason: experiment.stopReason,
    },
  };
}
