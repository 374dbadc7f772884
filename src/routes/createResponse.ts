import { createResponseRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { responsesCacheRule } from "../cache/cacheable.ts";
import { responsesSemanticSplit } from "../cache/semantic-split.ts";
import { chatFieldOverrides } from "../pipeline/config-overrides.ts";
import { proxyOperation } from "../pipeline/proxy-operation.ts";
import { jsonProxyInput, pipelineRoute, proxyDeps, proxyResponse } from "./proxy/proxy-route.ts";
import { isResponsesStreamEnd, responsesInputText, responsesOutputText, responsesStreamText } from "../streams/responses-text.ts";
import { ok } from "../errors.ts";
import type { RequestBody } from "../operation/request-body.ts";
import { findProvider } from "../providers/catalogue.ts";
import { keepAnswer } from "../responses/keep-answer.ts";
import { continued } from "../responses/kept-responses.ts";
import { mcpServerPlans, type McpServerPlan } from "../mcp/server-plans.ts";
import { hasInlineMcpSecrets, maskedMcpBody } from "../mcp/inline-secrets.ts";

/**
 * The Responses API. Its streams are typed events (`event: response.output_text.delta`…) with no
 * `[DONE]`: they end with `response.completed` (or `failed`, `incomplete`), which is held back
 * while output guardrails judge the stream, or where the bytes end, which is clean too.
 */
export const responseOperation: OperationDescriptor = {
  id: "createResponse",
  method: "POST",
  upstreamPath: { fixed: "/responses" },
  body: "json",
  answer: "json",
  streamEndsAtEof: true,
  isStreamEnd: isResponsesStreamEnd,
  format: "responses",
  cache: responsesCacheRule,
  semantic: responsesSemanticSplit,
  genAiOperation: "chat",
  overrides: chatFieldOverrides,
  guardrails: { input: responsesInputText, output: responsesOutputText, streamOutput: responsesStreamText },
};

/**
 * A provider that keeps no responses (one reached through its chat translation) gets the
 * gateway's: a `previous_response_id` the gateway kept is continued here, and the answer is kept
 * unless the request says `store: false` (`responses/`).
 */
export function registerCreateResponse(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  pipelineRoute(
    app,
    createResponseRoute,
    deps,
    async (c) => {
      const body = c.req.valid("json") as Record<string, unknown>;
      const input = await jsonProxyInput(c, body, c.req.valid("header"));
      const mcpServers = hasMcpTool(body.tools) ? await serverPlans(body.tools as unknown[], input.workspaceId, deps) : undefined;
      const previous = typeof body.previous_response_id === "string" ? await deps.store.storedResponses.get(input.workspaceId, body.previous_response_id) : null;
      const sent = previous ? continued(body, previous.conversation) : body;
      // The log keeps an inline server's secrets masked; the server is sent them.
      const clientBodyText = hasInlineMcpSecrets(body.tools) ? JSON.stringify(maskedMcpBody(previous ? sent : clientBody(input.body, body))) : undefined;
      const result = await proxyOperation(responseOperation, { ...input, ...(previous && { body: { kind: "json", value: sent } }), mcpServers, ...(clientBodyText !== undefined && { clientBodyText }) }, core);
      if (!result.ok) return proxyResponse(c, result);
      const provider = findProvider(result.value.outcome.provider ?? "");
      // A run the gateway drove for a stored server is the gateway's to keep, whoever answered.
      const ranTools = mcpServers?.some((plan) => plan.stored) === true;
      const keeps = provider !== undefined && (!provider.openaiFormat || ranTools) && body.store !== false;
      const response = keeps ? keepAnswer(result.value.response, sent.input, input.workspaceId, deps.store.storedResponses) : result.value.response;
      return proxyResponse(c, ok({ ...result.value, response }));
    },
    { operation: responseOperation },
  );
}

/** Whether the request has an `mcp` tool: the only case that reads MCP servers. */
function hasMcpTool(tools: unknown): boolean {
  return Array.isArray(tools) && tools.some((tool) => typeof tool === "object" && tool !== null && (tool as { type?: unknown }).type === "mcp");
}

/** The request's MCP servers, stored ones read through the control-plane cache; a 400 naming the tool otherwise. */
async function serverPlans(tools: unknown[], workspaceId: string, deps: GatewayDeps): Promise<McpServerPlan[]> {
  const plans = await mcpServerPlans(tools, workspaceId, {
    loadServer: (workspace, label) => deps.controlPlane.get("mcp-server", workspace, label, () => deps.store.mcpServers.getByLabel(workspace, label)),
    secrets: deps.secrets,
    checkCustomHost: deps.checkCustomHost,
    maxServers: deps.config.GATEWAY_MCP_MAX_SERVERS,
  });
  if (!plans.ok) throw plans.error;
  return plans.value;
}

/** The body as the client wrote it (its text parsed), or as validated when the text does not parse to an object. */
function clientBody(sent: RequestBody, validated: Record<string, unknown>): Record<string, unknown> {
  if (sent.kind !== "json" || sent.raw === undefined) return validated;
  try {
    const parsed: unknown = JSON.parse(sent.raw);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : validated;
  } catch {
    return validated;
  }
}
