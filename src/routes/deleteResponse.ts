import { deleteResponseRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * Deletes a stored model response at the upstream (`DELETE /responses/{id}`).
 * The request goes upstream as it arrives, to the same path and query.
 */
export const deleteResponseOperation: OperationDescriptor = {
  id: "deleteResponse",
  method: "DELETE",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "stored",
};

export const registerDeleteResponse = proxiedRoute(deleteResponseRoute, deleteResponseOperation);
