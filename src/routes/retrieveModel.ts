import { retrieveModelRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";

/**
 * `GET /v1/models/{model}` describes one of the upstream's models. Sent to the path and query the client used (after `/v1`).
 * https://platform.openai.com/docs/api-reference/models
 */
export const retrieveModelOperation: OperationDescriptor = {
  id: "retrieveModel",
  method: "GET",
  upstreamPath: { afterV1: true },
  body: "none",
  answer: "json",
  format: "json",
};

export const registerRetrieveModel = proxiedRoute(retrieveModelRoute, retrieveModelOperation);
