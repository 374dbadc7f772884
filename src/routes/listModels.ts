import type { Context } from "hono";
import { listModelsRoute } from "../generated/routes.gen.ts";
import { proxiedOperation, proxiedRoute, validatedHeaders } from "./proxy/proxied-route.ts";
import type { GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { loadRequestConfig } from "../pipeline/request-config.ts";
import { catalogueModels } from "../providers/model-list.ts";

/**
 * The selected provider's models, as it lists them; with no provider
 * selected (no provider or virtual key header, no config, no default config), the gateway's
 * own catalogue, whose `@<provider>/<model>` ids select their provider when used as a model.
 * https://platform.openai.com/docs/api-reference/models
 */
export const listModelsOperation = proxiedOperation(listModelsRoute, {});

export const registerListModels = proxiedRoute(listModelsRoute, listModelsOperation, { answerFirst: catalogueWhenNoProvider });

/** The gateway's catalogue when nothing names a provider: no provider or virtual key header, no config header and no default config. */
async function catalogueWhenNoProvider(c: Context<GatewayEnv>, deps: GatewayDeps): Promise<Response | null> {
  const headers = validatedHeaders(c);
  if (headers["x-gateway-provider"]?.trim() || headers["x-gateway-virtual-key"]?.trim() || headers["x-gateway-config"]?.trim()) return null;
  const config = await loadRequestConfig(undefined, c.get("auth").workspaceId, deps);
  // A default config that cannot be read still selects: the proxy answers its error.
  return config.ok && config.value === null ? c.json({ object: "list" as const, data: [...catalogueModels] }, 200) : null;
}
