import { createModerationRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { jsonProxyInput, loggedRoute, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";
import type { JsonObject } from "../providers/provider.ts";

/** Moderations: free upstream, so the log prices nothing; input guardrails judge the `input` strings. */
export const moderationOperation: OperationDescriptor = {
  id: "createModeration",
  method: "POST",
  upstreamPath: "/moderations",
  body: "json",
  answer: "json",
  format: "json",
  guardrails: { input: inputStrings },
};

export function registerCreateModeration(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(createModerationRoute, deps),
    async (c) => proxyResponse(c, await proxyOperation(moderationOperation, await jsonProxyInput(c, c.req.valid("json"), c.req.valid("header")), core)),
    logHeadersHook,
  );
}

/** The `input` strings, joined by newlines; image parts carry no text to judge, text parts do. */
function inputStrings(body: JsonObject): string {
  const { input } = body;
  if (typeof input === "string") return input;
  if (!Array.isArray(input)) return "";
  return input
    .map((item) => (typeof item === "string" ? item : item && typeof item === "object" && typeof (item as JsonObject).text === "string" ? ((item as JsonObject).text as string) : null))
    .filter((text): text is string => text !== null)
    .join("\n");
}
