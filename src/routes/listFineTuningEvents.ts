import { listFineTuningEventsRoute } from "../generated/routes.gen.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Lists a fine-tuning job's events.
 * https://platform.openai.com/docs/api-reference/fine-tuning
 */
export const listFineTuningEventsOperation = proxiedOperation(listFineTuningEventsRoute, {});

export const registerListFineTuningEvents = proxiedRoute(listFineTuningEventsRoute, listFineTuningEventsOperation);
