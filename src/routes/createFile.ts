import { createFileRoute } from "../generated/routes.gen.ts";
import { proxiedOperation, proxiedRoute } from "./proxied-route.ts";

/**
 * Uploads a file: the multipart form streams upstream as it arrives, unread and unlogged.
 * https://platform.openai.com/docs/api-reference/files
 */
export const createFileOperation = proxiedOperation(createFileRoute, {});

export const registerCreateFile = proxiedRoute(createFileRoute, createFileOperation);
