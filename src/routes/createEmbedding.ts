import { createEmbeddingRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { jsonProxyInput, loggedRoute, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";
import type { JsonObject } from "../providers/provider.ts";

export const embeddingOperation: OperationDescriptor = {
  id: "createEmbedding",
  method: "POST",
  upstreamPath: "/embeddings",
  body: "json",
  answer: "json",
  format: "json",
  guardrails: { input: inputStrings },
};

export function registerCreateEmbedding(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(createEmbeddingRoute, deps),
    async (c) => proxyResponse(c, await proxyOperation(embeddingOperation, await jsonProxyInput(c, c.req.valid("json"), c.req.valid("header")), core)),
    logHeadersHook,
  );
}

/** The strings to embed, joined by newlines; token arrays carry no text to judge. */
function inputStrings(body: JsonObject): string {
  const { input } = body;
  if (typeof input === "string") return input;
  return Array.isArray(input) ? input.filter((item): item is string => typeof item === "string").join("\n") : "";
}
