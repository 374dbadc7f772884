import { createEmbeddingRoute } from "../generated/routes.gen.ts";
import { embeddingOperation } from "./proxy/embedding-operation.ts";
import { proxiedRoute } from "./proxied-route.ts";

export { embeddingOperation };

export const registerCreateEmbedding = proxiedRoute(createEmbeddingRoute, embeddingOperation);
