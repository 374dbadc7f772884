import { listFineTuningEventsRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `GET /v1/fine_tuning/jobs/{fine_tuning_job_id}/events` lists a fine-tuning job's events. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/fine-tuning
 */
export const listFineTuningEventsOperation: OperationDescriptor = {
  id: "listFineTuningEvents",
  method: "GET",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "json",
};

export const registerListFineTuningEvents = proxiedRoute(listFineTuningEventsRoute, listFineTuningEventsOperation);
