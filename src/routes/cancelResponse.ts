import { cancelResponseRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * Cancels a background model response at the upstream (`POST /responses/{id}/cancel`, no body).
 * The request goes upstream as it arrives, to the same path and query.
 */
export const cancelResponseOperation: OperationDescriptor = {
  id: "cancelResponse",
  method: "POST",
  upstreamPath: { afterV1: true },
  body: "as-sent",
  answer: "json",
  format: "stored",
};

export const registerCancelResponse = proxiedRoute(cancelResponseRoute, cancelResponseOperation);
