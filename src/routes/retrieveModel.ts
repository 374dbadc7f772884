import { retrieveModelRoute } from "../generated/routes.gen.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Describes one of the upstream's models.
 * https://platform.openai.com/docs/api-reference/models
 */
export const retrieveModelOperation = proxiedOperation(retrieveModelRoute, {});

export const registerRetrieveModel = proxiedRoute(retrieveModelRoute, retrieveModelOperation);
