import type { RouteHandler } from "@hono/zod-openapi";
import { openMcpServerStreamRoute } from "../generated/routes.gen.ts";
import type { GatewayApp, GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { mcpHttpRequest } from "./mcp/mcp-http.ts";

/** An MCP client's stream of the server's own messages for its session. Its answers are MCP's own (JSON-RPC), not a typed body. */
export function registerOpenMcpServerStream(app: GatewayApp, deps: GatewayDeps): void {
  const handler = async (c: Parameters<RouteHandler<typeof openMcpServerStreamRoute, GatewayEnv>>[0]) => deps.mcp.get(mcpHttpRequest(c, c.req.valid("param").server_label));
  app.openapi(openMcpServerStreamRoute, handler as unknown as RouteHandler<typeof openMcpServerStreamRoute, GatewayEnv>);
}
