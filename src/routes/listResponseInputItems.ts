import { listResponseInputItemsRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * The input items of a stored model response (`GET /responses/{id}/input_items`, its query passed on).
 * The request goes upstream as it arrives, to the same path and query.
 */
export const listResponseInputItemsOperation: OperationDescriptor = {
  id: "listResponseInputItems",
  method: "GET",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "stored",
};

export const registerListResponseInputItems = proxiedRoute(listResponseInputItemsRoute, listResponseInputItemsOperation);
