import { listFineTuningJobCheckpointsRoute } from "../generated/routes.gen.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Lists a fine-tuning job's checkpoints.
 * https://platform.openai.com/docs/api-reference/fine-tuning
 */
export const listFineTuningJobCheckpointsOperation = proxiedOperation(listFineTuningJobCheckpointsRoute, {});

export const registerListFineTuningJobCheckpoints = proxiedRoute(listFineTuningJobCheckpointsRoute, listFineTuningJobCheckpointsOperation);
