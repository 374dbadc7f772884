/**
 * The bench's MCP server under Bun: `PORT=n bun scripts/bench/mcp-upstream.ts`, at `/mcp`
 * (`mcp-server.ts` says what it answers and why it is hand-written).
 */
import { mcpBenchHandler } from "./mcp-server.ts";

const handler = mcpBenchHandler();
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(process.env.PORT ?? 0),
  fetch: (request) => handler.fetch(request),
});

console.log(`bench MCP server on ${server.url.href}mcp`);
