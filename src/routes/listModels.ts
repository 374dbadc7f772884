import type { Context } from "hono";
import { listModelsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp, GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation, type ProxyDeps } from "../core/proxy-operation.ts";
import { forwardedProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse, type ProxyRouteHeaders } from "../core/proxy-route.ts";
import { loadRequestConfig } from "../core/request-config.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";
import { catalogueModels } from "../providers/model-list.ts";

/**
 * `GET /v1/models`: the selected provider's models, as it lists them; with no provider
 * selected (no provider or virtual key header, no config, no default config), the gateway's
 * own catalogue, whose `@<provider>/<model>` ids select their provider when used as a model.
 * https://platform.openai.com/docs/api-reference/models
 */
export const listModelsOperation: OperationDescriptor = {
  id: "listModels",
  method: "GET",
  upstreamPath: "/models",
  body: "none",
  answer: "json",
  format: "json",
};

export function registerListModels(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(listModelsRoute, deps),
    async (c) => {
      const headers = c.req.valid("header");
      if (await selectsNoProvider(c, headers, core)) return c.json({ object: "list" as const, data: [...catalogueModels] }, 200);
      const operation = { ...listModelsOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, forwardedProxyInput(c, headers), core));
    },
    logHeadersHook,
  );
}

/** True when nothing names a provider: no provider or virtual key header, no config header and no default config. */
async function selectsNoProvider(c: Context<GatewayEnv>, headers: ProxyRouteHeaders, core: ProxyDeps): Promise<boolean> {
  if (headers["x-gateway-provider"]?.trim() || headers["x-gateway-virtual-key"]?.trim() || headers["x-gateway-config"]?.trim()) return false;
  const config = await loadRequestConfig(undefined, c.get("auth").workspaceId, core);
  // A default config that cannot be read still selects: the proxy answers its error.
  return config.ok && config.value === null;
}
