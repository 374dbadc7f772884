import { deleteFileRoute } from "../generated/routes.gen.ts";
import { proxiedOperation, proxiedRoute } from "./proxied-route.ts";

/**
 * Deletes one file.
 * https://platform.openai.com/docs/api-reference/files
 */
export const deleteFileOperation = proxiedOperation(deleteFileRoute, {});

export const registerDeleteFile = proxiedRoute(deleteFileRoute, deleteFileOperation);
