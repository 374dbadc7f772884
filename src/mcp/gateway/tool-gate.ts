/**
 * What the MCP gateway does around each tool call: the price it counts against the caller's
 * budgets and logs as the call's cost.
 */
import type { ToolGate } from "./call-scope.ts";

/** A tool call's price: the tool's own (`tool_prices`), else the server's `call_price_usd`; null when neither is set. */
export function toolPrice(record: { callPriceUsd: number | null; toolPrices: Record<string, number> | null }, tool: string): number | null {
  const own = record.toolPrices?.[tool];
  return typeof own === "number" ? own : record.callPriceUsd;
}

/** The gate of a gateway without limits or guardrails on tool calls: it prices them, and lets them through. */
export const pricingGate: ToolGate = {
  before: async (_server, _tool, request) => ({ ok: true, request }),
  after: async (_server, _tool, response) => response,
  price: (server, tool) => toolPrice(server.record, tool),
};
