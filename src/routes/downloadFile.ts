import { downloadFileRoute } from "../generated/routes.gen.ts";
import { proxiedOperation, proxiedRoute } from "./proxied-route.ts";

/**
 * A file's bytes, relayed as they arrive with the upstream's content type.
 * https://platform.openai.com/docs/api-reference/files
 */
export const downloadFileOperation = proxiedOperation(downloadFileRoute, {
  answer: "as-sent",
});

export const registerDownloadFile = proxiedRoute(downloadFileRoute, downloadFileOperation);
