import type { RouteHandler } from "@hono/zod-openapi";
import { callMcpServerRoute } from "../generated/routes.gen.ts";
import type { GatewayApp, GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { mcpHttpRequest } from "./mcp/mcp-http.ts";

/** One JSON-RPC message of an MCP client, served by the MCP gateway. Its answers are MCP's own (JSON-RPC), not a typed body. */
export function registerCallMcpServer(app: GatewayApp, deps: GatewayDeps): void {
  const handler = async (c: Parameters<RouteHandler<typeof callMcpServerRoute, GatewayEnv>>[0]) => deps.mcp.post(mcpHttpRequest(c, c.req.valid("param").server_label), await c.req.text());
  app.openapi(callMcpServerRoute, handler as unknown as RouteHandler<typeof callMcpServerRoute, GatewayEnv>);
}
