import { listVectorStoresRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * Lists vector stores, with the query as the client sent it.
 * https://platform.openai.com/docs/api-reference/vector-stores
 */
export const listVectorStoresOperation = proxiedOperation(listVectorStoresRoute, {
  answers: storedAnswers,
});

export const registerListVectorStores = proxiedRoute(listVectorStoresRoute, listVectorStoresOperation);
