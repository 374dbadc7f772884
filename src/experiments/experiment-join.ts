import type { ControlPlaneCache } from "../control-plane/cache.ts";
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import { controlOf, type ExperimentRecord, type ExperimentVariant } from "../records/experiment.ts";
import type { ControlPlaneStore } from "../store/open-store.ts";
import { assignmentUnit, chooseVariant, type AssignmentFacts } from "./assignment.ts";

/** A request's place in an experiment: the variant whose change it gets, and whether its log names them. */
export interface ExperimentJoin {
  experiment: ExperimentRecord;
  variant: ExperimentVariant;
  /** False for a stopped experiment's requests: they get the control, outside the experiment's results. */
  logged: boolean;
}

export interface JoinRequest {
  workspaceId: string;
  /** The stored prompt the request runs, if any. */
  promptId: string | null;
  /** The run names its own prompt version or label: the experiment does not choose for it. */
  pinnedPrompt: boolean;
  facts: AssignmentFacts;
}

export interface JoinDeps {
  store: Pick<ControlPlaneStore, "experiments">;
  controlPlane: ControlPlaneCache;
}

/**
 * The experiment a config names, as this request meets it. Read from the control-plane cache:
 * a fresh entry answers without a promise, so a request pays a map lookup and a hash; every
 * replica is told of a change through Redis. Null when the request is outside it: no experiment
 * named, a draft or concluded one, one about another prompt (or a run that pins its version). A
 * running experiment assigns a variant by the unit's hash; a stopped one gives the control,
 * unlogged. An experiment the workspace does not have is a 400: the config names something to fix.
 */
export function joinExperiment(
  experimentId: string | undefined,
  request: JoinRequest,
  deps: JoinDeps,
): Result<ExperimentJoin | null, GatewayError> | Promise<Result<ExperimentJoin | null, GatewayError>> {
  if (experimentId === undefined) return ok(null);
  const { workspaceId } = request;
  const cached = deps.controlPlane.peek<ExperimentRecord | null>("experiment", workspaceId, experimentId);
  if (cached !== undefined) return joined(experimentId, cached, request);
  return deps.controlPlane
    .get("experiment", workspaceId, experimentId, async () => (await deps.store.experiments.get(workspaceId, experimentId)) ?? null)
    .then((experiment) => joined(experimentId, experiment, request));
}

function joined(experimentId: string, experiment: ExperimentRecord | null, request: JoinRequest): Result<ExperimentJoin | null, GatewayError> {
  if (!experiment) {
    return fail(new GatewayError("invalid_request", `The config names experiment ${experimentId}, which this workspace does not have.`, { param: "x-gateway-config" }));
  }
  if (experiment.status === "draft" || experiment.status === "concluded") return ok(null);
  if (experiment.promptId !== null && (experiment.promptId !== request.promptId || request.pinnedPrompt)) return ok(null);
  if (experiment.status === "stopped") return ok({ experiment, variant: controlOf(experiment), logged: false });
  const variant = chooseVariant(experiment.id, assignmentUnit(experiment.assignment, request.facts), experiment.variants);
  return ok(variant ? { experiment, variant, logged: true } : null);
}
