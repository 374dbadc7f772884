/**
 * Where each OpenAI path lives on an Azure OpenAI resource (pure, data-driven).
 * - Inference on one deployment: `/openai/deployments/{deployment}/<path>?api-version=…`
 *   (chat, completions, embeddings, images, audio);
 * - resource-wide (files, batches, fine-tuning, models, responses, vector stores, uploads…):
 *   `/openai/<path>?api-version=…`;
 * - with `azure_api_version: v1` (the v1 API), every path is `/openai/v1/<path>`, the model in
 *   the body names the deployment, and no api-version is sent.
 * https://learn.microsoft.com/azure/ai-foundry/openai/reference
 * https://learn.microsoft.com/azure/ai-foundry/openai/api-version-lifecycle
 */
import { GatewayError } from "../../errors.ts";

/** The API version sent when none is asked for: the latest GA data-plane version. */
export const DEFAULT_API_VERSION = "2024-10-21";

/** The paths served per deployment; every other path is the resource's. */
export const DEPLOYMENT_PATHS: readonly string[] = [
  "/chat/completions",
  "/completions",
  "/embeddings",
  "/images/generations",
  "/images/edits",
  "/images/variations",
  "/audio/transcriptions",
  "/audio/translations",
  "/audio/speech",
];

export function azurePath(path: string, context: { model: string | null; fields: Readonly<Record<string, string>> }): string | GatewayError {
  const queryAt = path.indexOf("?");
  const pathname = queryAt === -1 ? path : path.slice(0, queryAt);
  const query = new URLSearchParams(queryAt === -1 ? "" : path.slice(queryAt + 1));
  const version = context.fields.azure_api_version ?? DEFAULT_API_VERSION;
  if (version === "v1") return withQuery(`/openai/v1${pathname}`, query);
  if (!query.has("api-version")) query.set("api-version", version);
  if (!DEPLOYMENT_PATHS.includes(pathname)) return withQuery(`/openai${pathname}`, query);
  const deployment = context.fields.azure_deployment ?? context.model;
  if (!deployment) {
    return new GatewayError("invalid_request", `Azure OpenAI serves ${pathname} per deployment: name it as the model, or send x-gateway-azure-deployment.`, { param: "model" });
  }
  return withQuery(`/openai/deployments/${encodeURIComponent(deployment)}${pathname}`, query);
}

function withQuery(pathname: string, query: URLSearchParams): string {
  const text = query.toString();
  return text ? `${pathname}?${text}` : pathname;
}
