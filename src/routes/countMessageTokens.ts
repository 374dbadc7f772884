import { countMessageTokensRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { chatFieldOverrides } from "../pipeline/config-overrides.ts";
import { proxyOperation } from "../pipeline/proxy-operation.ts";
import { loggedRoute, proxyDeps, proxyResponse } from "./proxy/proxy-route.ts";
import { anthropicProxyInput } from "./proxy/anthropic-proxy-input.ts";
import { anthropicErrors } from "../middleware/anthropic-errors.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * Anthropic's token counting, passed as it is to providers that count natively (those listing
 * transforms for it); an OpenAI-format provider answers 400 naming itself rather than a guess.
 * Logged as `stored`: its `input_tokens` are a count, not tokens used, so nothing is priced.
 */
export const countMessageTokensOperation: OperationDescriptor = {
  id: "countMessageTokens",
  method: "POST",
  upstreamPath: { fixed: "/messages/count_tokens" },
  body: "json",
  answer: "json",
  format: "stored",
  overrides: chatFieldOverrides,
  nativeOnly: true,
};

export function registerCountMessageTokens(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  const route = { ...countMessageTokensRoute, middleware: [anthropicErrors(), countMessageTokensRoute.middleware] };
  app.openapi(
    loggedRoute(route, deps, countMessageTokensOperation),
    async (c) => {
      const input = await anthropicProxyInput(c, c.req.valid("json"), c.req.valid("header"));
      if (!input.ok) throw input.error;
      return proxyResponse(c, await proxyOperation(countMessageTokensOperation, input.value, core));
    },
    logHeadersHook,
  );
}
