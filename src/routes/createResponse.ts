import { createResponseRoute } from "../generated/routes.gen.ts";
import type { GatewayDeps } from "../deps.ts";
import {
  isResponsesStreamEnd,
  responsesAnswers,
  responsesCacheRule,
  responsesInputText,
  responsesOutputText,
  responsesSemanticSplit,
  responsesStreamText,
} from "../families/responses/index.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import type { RequestBody } from "../operation/request-body.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";
import { findProvider } from "../providers/catalogue.ts";
import { keepAnswer } from "../families/responses/kept/keep-answer.ts";
import { continued } from "../families/responses/kept/kept-responses.ts";
import { mcpServerPlans, type McpServerPlan } from "../mcp/server-plans.ts";
import { hasInlineMcpSecrets, maskedMcpBody } from "../mcp/inline-secrets.ts";

/**
 * The Responses API. Its streams are typed events (`event: response.output_text.delta`…) with no
 * `[DONE]`: they end with `response.completed` (or `failed`, `incomplete`), which is held back
 * while output guardrails judge the stream, or where the bytes end, which is clean too. Cached
 * only when nothing is stored or run in the background; `mcp` tools run in the gateway's tool loop.
 */
export const responseOperation = proxiedOperation(createResponseRoute, {
  streamEndsAtEof: true,
  isStreamEnd: isResponsesStreamEnd,
  answers: responsesAnswers,
  cache: responsesCacheRule,
  semantic: responsesSemanticSplit,
  genAiOperation: "chat",
  overrides: jsonFieldOverrides,
  guardrails: { input: responsesInputText, output: responsesOutputText, streamOutput: responsesStreamText },
});

/**
 * A provider that keeps no responses (one reached through its chat translation) gets the
 * gateway's: a `previous_response_id` the gateway kept is continued here, and the answer is kept
 * unless the request says `store: false` (`families/responses/kept/`).
 */
export const registerCreateResponse = proxiedRoute(createResponseRoute, responseOperation, {
  async prepare(_c, input, deps) {
    if (input.body.kind !== "json") return input;
    const body = input.body.value;
    const mcpServers = hasMcpTool(body.tools) ? await serverPlans(body.tools as unknown[], input.workspaceId, deps) : undefined;
    const previous = typeof body.previous_response_id === "string" ? await deps.store.storedResponses.get(input.workspaceId, body.previous_response_id) : null;
    const sent = previous ? continued(body, previous.conversation) : body;
    // The log keeps an inline server's secrets masked; the server is sent them.
    const clientBodyText = hasInlineMcpSecrets(body.tools) ? JSON.stringify(maskedMcpBody(previous ? sent : clientBody(input.body))) : undefined;
    return { ...input, ...(previous && { body: { kind: "json", value: sent } }), mcpServers, ...(clientBodyText !== undefined && { clientBodyText }) };
  },
  settle(_c, answer, input, deps) {
    if (input.body.kind !== "json") return answer;
    const sent = input.body.value;
    const provider = findProvider(answer.outcome.provider ?? "");
    // A run the gateway drove for a stored server is the gateway's to keep, whoever answered.
    const ranTools = input.mcpServers?.some((plan) => plan.stored) === true;
    const keeps = provider !== undefined && (!provider.openaiFormat || ranTools) && sent.store !== false;
    return keeps ? { ...answer, response: keepAnswer(answer.response, sent.input, input.workspaceId, deps.store.storedResponses) } : answer;
  },
});

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
function clientBody(sent: Extract<RequestBody, { kind: "json" }>): Record<string, unknown> {
  if (sent.raw === undefined) return sent.value;
  try {
    const parsed: unknown = JSON.parse(sent.raw);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : sent.value;
  } catch {
    return sent.value;
  }
}
