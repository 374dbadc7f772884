import { retrieveFileRoute } from "../generated/routes.gen.ts";
import { proxiedOperation, proxiedRoute } from "./proxied-route.ts";

/**
 * Describes one file.
 * https://platform.openai.com/docs/api-reference/files
 */
export const retrieveFileOperation = proxiedOperation(retrieveFileRoute, {});

export const registerRetrieveFile = proxiedRoute(retrieveFileRoute, retrieveFileOperation);
