/**
 * The Responses items of a tool run the gateway drives, as OpenAI's hosted MCP returns them
 * (`mcp_list_tools`, `mcp_call`, `mcp_approval_request`), and the model's view of the same
 * conversation: MCP tools as function tools, MCP items as function calls and their outputs.
 * Pure. https://platform.openai.com/docs/guides/tools-remote-mcp
 */
import type { JsonObject } from "../../../providers/provider.ts";
import type { McpApprovalPolicy } from "../../../records/control-plane.ts";
import type { McpSession, McpTool } from "../../../mcp/mcp-session.ts";

/** Text cut to a size with a note saying so, as results are. */
export { capped } from "../../../mcp/capped-text.ts";

export const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** One MCP tool offered to the model as a function. */
export interface ToolOffer {
  /** The function name the model sees: the tool's own when it is a valid, unique function name. */
  fn: string;
  label: string;
  tool: McpTool;
  session: McpSession;
  approvals: readonly McpApprovalPolicy[];
}

/** The offers of every session, with function names valid for every provider (`[A-Za-z0-9_-]{1,64}`) and unique. */
export function toolOffers(sessions: ReadonlyArray<{ session: McpSession; approvals: readonly McpApprovalPolicy[] }>): Map<string, ToolOffer> {
  const offers = new Map<string, ToolOffer>();
  const counts = new Map<string, number>();
  for (const { session } of sessions) for (const tool of session.tools) counts.set(tool.name, (counts.get(tool.name) ?? 0) + 1);
  for (const { session, approvals } of sessions) {
    for (const tool of session.tools) {
      const base = (counts.get(tool.name)! > 1 ? `${session.label}__${tool.name}` : tool.name).replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
      let fn = base;
      for (let n = 2; offers.has(fn); n += 1) fn = `${base.slice(0, 60)}_${n}`;
      offers.set(fn, { fn, label: session.label, tool, session, approvals });
    }
  }
  return offers;
}

export function offerFor(offers: ReadonlyMap<string, ToolOffer>, label: unknown, name: unknown): ToolOffer | undefined {
  for (const offer of offers.values()) if (offer.label === label && offer.tool.name === name) return offer;
  return undefined;
}

/** The function tool the model is given for an offer. */
export function functionTool(offer: ToolOffer): JsonObject {
  const parameters = isObject(offer.tool.input_schema) ? offer.tool.input_schema : { type: "object", properties: {} };
  return { type: "function", name: offer.fn, description: offer.tool.description ?? `${offer.tool.name} (MCP server ${offer.label})`, parameters, strict: false };
}

export function listToolsItem(id: string, label: string, tools: readonly McpTool[], error: string | null): JsonObject {
  return { id, type: "mcp_list_tools", server_label: label, tools: tools.map((tool) => ({ ...tool })), ...(error !== null && { error }) };
}

export function approvalRequestItem(callId: string, offer: ToolOffer, args: string): JsonObject {
  return { id: `mcpr_${callId}`, type: "mcp_approval_request", server_label: offer.label, name: offer.tool.name, arguments: args };
}

export function functionCall(callId: string, name: string, args: string): JsonObject {
  return { type: "function_call", call_id: callId, name, arguments: args };
}

export function functionOutput(callId: string, output: string): JsonObject {
  return { type: "function_call_output", call_id: callId, output };
}

/** An approval the client gave (or refused) for a request of the conversation. */
export interface ApprovalDecision {
  request: JsonObject;
  approve: boolean;
  /** Where the response is in the input, for errors. */
  index: number;
}

/**
 * The client's input as the model reads it: MCP items become function calls and outputs of the
 * offered tools (listings and approval requests are the gateway's, not the model's), and the
 * approval responses are returned to be acted on. An approval response naming no request of the
 * input is an error naming it.
 */
export function modelInput(input: unknown[], offers: ReadonlyMap<string, ToolOffer>): { items: unknown[]; decisions: ApprovalDecision[]; listed: Set<string> } | { errorAt: number } {
  const items: unknown[] = [];
  const requests = new Map<string, JsonObject>();
  const decisions: ApprovalDecision[] = [];
  const listed = new Set<string>();
  const answered = new Set<string>();
  for (const [index, item] of input.entries()) {
    if (!isObject(item)) {
      items.push(item);
      continue;
    }
    if (item.type === "mcp_list_tools") {
      if (typeof item.server_label === "string") listed.add(item.server_label);
    } else if (item.type === "mcp_call") {
      const offer = offerFor(offers, item.server_label, item.name);
      if (!offer || typeof item.id !== "string") continue;
      if (typeof item.approval_request_id === "string") answered.add(item.approval_request_id);
      items.push(functionCall(item.id, offer.fn, typeof item.arguments === "string" ? item.arguments : "{}"));
      items.push(functionOutput(item.id, typeof item.output === "string" ? item.output : `Error: ${JSON.stringify(item.error ?? "the call failed")}`));
    } else if (item.type === "mcp_approval_request") {
      if (typeof item.id === "string") requests.set(item.id, item);
    } else if (item.type === "mcp_approval_response") {
      const request = typeof item.approval_request_id === "string" ? requests.get(item.approval_request_id) : undefined;
      if (!request) return { errorAt: index };
      if (!answered.has(request.id as string)) decisions.push({ request, approve: item.approve === true, index });
      answered.add(request.id as string);
    } else {
      items.push(item);
    }
  }
  return { items, decisions, listed };
}

/** Token counts of Responses usage added up over a run's rounds. */
export function addUsage(total: JsonObject | null, usage: unknown): JsonObject | null {
  if (!isObject(usage)) return total;
  const number = (value: unknown): number => (typeof value === "number" ? value : 0);
  const detail = (object: unknown, key: string): number => (isObject(object) ? number(object[key]) : 0);
  const base = total ?? { input_tokens: 0, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 };
  return {
    input_tokens: number(base.input_tokens) + number(usage.input_tokens),
    input_tokens_details: {
      cached_tokens: detail(base.input_tokens_details, "cached_tokens") + detail(usage.input_tokens_details, "cached_tokens"),
      cache_write_tokens: detail(base.input_tokens_details, "cache_write_tokens") + detail(usage.input_tokens_details, "cache_write_tokens"),
    },
    output_tokens: number(base.output_tokens) + number(usage.output_tokens),
    output_tokens_details: { reasoning_tokens: detail(base.output_tokens_details, "reasoning_tokens") + detail(usage.output_tokens_details, "reasoning_tokens") },
    total_tokens: number(base.total_tokens) + number(usage.total_tokens ?? number(usage.input_tokens) + number(usage.output_tokens)),
    ...searchesField(detail(base.server_tool_use, "web_search_requests") + detail(usage.server_tool_use, "web_search_requests")),
  };
}

/** The provider's searches over the run, where there were any. */
const searchesField = (searches: number): JsonObject => (searches > 0 ? { server_tool_use: { web_search_requests: searches } } : {});

