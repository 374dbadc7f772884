import { createImageEditRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { jsonOrForwardedProxyInput, loggedRoute, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * Image edits: a multipart upload passed upstream as it arrives (the generated route does not read it);
 * the log keeps its content type, size and small form fields, never the file. The JSON form
 * (images by URL or file id) is validated and logged as sent. No guardrails:
 * a config that attaches them is refused (400). Priced per image, as generations.
 */
export const imageEditOperation: OperationDescriptor = {
  id: "createImageEdit",
  method: "POST",
  upstreamPath: "/images/edits",
  body: "as-sent",
  answer: "json",
  format: "image",
};

export function registerCreateImageEdit(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(createImageEditRoute, deps),
    async (c) => {
      const sent = await jsonOrForwardedProxyInput(c, imageEditOperation, c.req.valid("header"));
      return proxyResponse(c, await proxyOperation(sent.operation, sent.input, core));
    },
    logHeadersHook,
  );
}
