import { createImageVariationRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { forwardedProxyInput, loggedRoute, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * Image variations: a multipart upload passed upstream as it arrives (the generated route does not read it);
 * the log keeps its content type, size and small form fields, never the file. No guardrails:
 * a config that attaches them is refused (400). Priced per image, as generations.
 */
export const imageVariationOperation: OperationDescriptor = {
  id: "createImageVariation",
  method: "POST",
  upstreamPath: "/images/variations",
  body: "as-sent",
  answer: "json",
  format: "image",
};

export function registerCreateImageVariation(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(createImageVariationRoute, deps),
    async (c) => proxyResponse(c, await proxyOperation(imageVariationOperation, forwardedProxyInput(c, c.req.valid("header")), core)),
    logHeadersHook,
  );
}
