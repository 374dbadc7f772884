import type { RouteHandler } from "@hono/zod-openapi";
import { openMcpGatewayStreamRoute } from "../generated/routes.gen.ts";
import type { GatewayApp, GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { mcpHttpRequest } from "./mcp/mcp-http.ts";

/** An MCP client's stream of the server's own messages for its session. Its answers are MCP's own (JSON-RPC), not a typed body. */
export function registerOpenMcpGatewayStream(app: GatewayApp, deps: GatewayDeps): void {
  const handler = async (c: Parameters<RouteHandler<typeof openMcpGatewayStreamRoute, GatewayEnv>>[0]) => deps.mcp.get(mcpHttpRequest(c, null));
  app.openapi(openMcpGatewayStreamRoute, handler as unknown as RouteHandler<typeof openMcpGatewayStreamRoute, GatewayEnv>);
}
