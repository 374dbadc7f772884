import { createImageRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { streamEndsAt } from "../core/stream-end.ts";
import { jsonProxyInput, loggedRoute, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";
import type { JsonObject } from "../providers/provider.ts";

/**
 * Image generation: the prompt is what input guardrails judge; the log prices each image by
 * model, size and quality (`image` format).
 */
export const imageOperation: OperationDescriptor = {
  id: "createImage",
  method: "POST",
  upstreamPath: "/images/generations",
  body: "json",
  answer: "json",
  isStreamEnd: streamEndsAt("image_generation.completed"),
  format: "image",
  guardrails: { input: promptText },
};

export function registerCreateImage(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(createImageRoute, deps),
    async (c) => proxyResponse(c, await proxyOperation(imageOperation, await jsonProxyInput(c, c.req.valid("json"), c.req.valid("header")), core)),
    logHeadersHook,
  );
}

/** The `prompt` text; without one there is nothing to judge. */
function promptText(body: JsonObject): string {
  return typeof body.prompt === "string" ? body.prompt : "";
}
