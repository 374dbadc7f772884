import type { RouteHandler } from "@hono/zod-openapi";
import { callMcpGatewayRoute } from "../generated/routes.gen.ts";
import type { GatewayApp, GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { mcpHttpRequest } from "./mcp/mcp-http.ts";

/** One JSON-RPC message of an MCP client, served by the MCP gateway. Its answers are MCP's own (JSON-RPC), not a typed body. */
export function registerCallMcpGateway(app: GatewayApp, deps: GatewayDeps): void {
  const handler = async (c: Parameters<RouteHandler<typeof callMcpGatewayRoute, GatewayEnv>>[0]) => deps.mcp.post(mcpHttpRequest(c, null), await c.req.text());
  app.openapi(callMcpGatewayRoute, handler as unknown as RouteHandler<typeof callMcpGatewayRoute, GatewayEnv>);
}
