import { getResponseRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { forwardedProxyInput, loggedRoute, pathAfterV1, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";
import { emptyOutcome } from "../pipeline/outcome.ts";

/**
 * A stored model response, read from the upstream (`GET /responses/{id}`). The request goes
 * upstream as it arrives, to the same path and query; with `?stream=true` the upstream replays
 * the response's events, relayed as they arrive and ending where the bytes end. A response the
 * gateway kept itself (`responses/`) is answered from the store.
 */
export const getResponseOperation: OperationDescriptor = {
  id: "getResponse",
  method: "GET",
  upstreamPath: "/responses/{response_id}",
  body: "none",
  answer: "as-sent",
  streamEndsAtEof: true,
  format: "stored",
};

export function registerGetResponse(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(getResponseRoute, deps),
    async (c) => {
      // A response the gateway kept for a provider that keeps none is answered here.
      const kept = await deps.store.storedResponses.get(c.get("auth").workspaceId, c.req.param("response_id"));
      if (kept) {
        c.get("exchange").handOver(emptyOutcome("stored"));
        return c.json(kept.response, 200) as never;
      }
      const operation = { ...getResponseOperation, upstreamPath: pathAfterV1(new URL(c.req.url)) };
      return proxyResponse(c, await proxyOperation(operation, forwardedProxyInput(c, c.req.valid("header")), core));
    },
    logHeadersHook,
  );
}
