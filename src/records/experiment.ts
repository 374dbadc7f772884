import type { ExperimentAssignment, ExperimentGuard, ExperimentStatus, ExperimentStopReason, ExperimentVariant } from "../generated/schemas.gen.ts";
import type { Ownership } from "./control-plane.ts";

export type { ExperimentAssignment, ExperimentGuard, ExperimentStatus, ExperimentStopReason, ExperimentVariant };
export type GuardMetric = ExperimentGuard["metric"];

/**
 * An experiment: variants of the requests a config joins to it (the first is the control),
 * split by a stable hash of the assignment unit, with guards that stop it. Variants, guards and
 * the stop reason are kept in their API form.
 */
export interface ExperimentRecord extends Ownership {
  id: string;
  name: string;
  description: string | null;
  status: ExperimentStatus;
  assignment: ExperimentAssignment;
  /** The prompt the experiment is about; it then takes only runs of that prompt. */
  promptId: string | null;
  variants: readonly ExperimentVariant[];
  guards: readonly ExperimentGuard[];
  /** The false-verdict rate its statistics allow, over every look. */
  alpha: number;
  startedAt: string | null;
  stoppedAt: string | null;
  concludedAt: string | null;
  stopReason: ExperimentStopReason | null;
  promotedVariant: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The variant every request gets once the experiment is stopped: the first. */
export function controlOf(experiment: Pick<ExperimentRecord, "variants">): ExperimentVariant {
  const control = experiment.variants[0];
  if (!control) throw new Error("an experiment has at least two variants");
  return control;
}
