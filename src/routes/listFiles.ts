import { listFilesRoute } from "../generated/routes.gen.ts";
import { proxiedOperation, proxiedRoute } from "./proxied-route.ts";

/**
 * Lists the upstream's files, with the query as the client sent it.
 * https://platform.openai.com/docs/api-reference/files
 */
export const listFilesOperation = proxiedOperation(listFilesRoute, {});

export const registerListFiles = proxiedRoute(listFilesRoute, listFilesOperation);
