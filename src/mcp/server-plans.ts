import type { SecretBox } from "../crypto/secret-box.ts";
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { CheckCustomHost } from "../net/custom-host.ts";
import type { McpApprovalPolicy, McpServerRecord } from "../records/control-plane.ts";
import { openMcpHeaders } from "../control-plane/mcp-server-secrets.ts";
import { mcpHeaderProblem } from "../control-plane/mcp-server-fields.ts";
import { approvalPolicyOf } from "./approval.ts";

/** One MCP server a request uses: where it is, what it is sent, which tools it offers, which need approval. */
export interface McpServerPlan {
  label: string;
  url: string;
  /** Sent with every request to `url`, and nowhere else. */
  headers: Readonly<Record<string, string>>;
  /** Null offers every tool the server lists. */
  allowedTools: ReadonlySet<string> | null;
  approvals: readonly McpApprovalPolicy[];
  /** Where the tool is in the request (`tools.2`), for errors. */
  param: string;
  /** A stored server: its secrets are the gateway's, so only the gateway connects to it. */
  stored: boolean;
}

export interface ServerPlanDeps {
  /** The stored server of the workspace by label (through the control-plane cache). */
  loadServer(workspaceId: string, label: string): Promise<McpServerRecord | undefined>;
  secrets: SecretBox;
  checkCustomHost: CheckCustomHost;
  /** `GATEWAY_MCP_MAX_SERVERS`: the `mcp` tools one request may name. */
  maxServers: number;
}

const LABEL = /^[A-Za-z0-9_-]{1,64}$/;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The servers of a request's `mcp` tools. A tool with `server_url` is inline: its URL is
 * checked by the custom-host guard and it is sent the tool's own `headers` and `authorization`.
 * A tool with `server_label` alone names a stored server: its URL, sealed headers, allowed
 * tools and approval policy are the stored ones, and the request may narrow the tools and add
 * approvals but may not send it headers. A stored server's secrets so go only to its own URL.
 * A request names at most `maxServers` of them, checked before any is looked at. Refusals are
 * 400s naming the tool's field.
 */
export async function mcpServerPlans(tools: readonly unknown[], workspaceId: string, deps: ServerPlanDeps): Promise<Result<McpServerPlan[], GatewayError>> {
  const named = tools.filter((tool) => isObject(tool) && tool.type === "mcp").length;
  if (named > deps.maxServers) {
    return fail(invalid("tools", `The request names ${named} MCP servers (mcp tools); a request may use at most ${deps.maxServers}.`));
  }
  const plans: McpServerPlan[] = [];
  for (const [index, tool] of tools.entries()) {
    if (!isObject(tool) || tool.type !== "mcp") continue;
    const param = `tools.${index}`;
    const planned = await planOf(tool, param, workspaceId, deps);
    if (!planned.ok) return planned;
    if (plans.some((plan) => plan.label === planned.value.label)) {
      return fail(invalid(`${param}.server_label`, `Two mcp tools use the server label ${planned.value.label}: labels must be unique in a request.`));
    }
    plans.push(planned.value);
  }
  return ok(plans);
}

async function planOf(tool: Record<string, unknown>, param: string, workspaceId: string, deps: ServerPlanDeps): Promise<Result<McpServerPlan, GatewayError>> {
  const label = tool.server_label;
  if (typeof label !== "string" || !LABEL.test(label)) {
    return fail(invalid(`${param}.server_label`, "An mcp tool needs a server_label of 1 to 64 letters, digits, _ or -."));
  }
  const asked = requestedTools(tool.allowed_tools);
  if (asked === "invalid") return fail(invalid(`${param}.allowed_tools`, "allowed_tools must be a list of tool names or {tool_names: [...]}."));
  const requested = asked;
  const approval = approvalPolicyOf(tool.require_approval);
  if (approval === null) return fail(invalid(`${param}.require_approval`, "require_approval must be always, never, or {always: {tool_names}, never: {tool_names}}."));

  if (typeof tool.server_url === "string") {
    const checked = await deps.checkCustomHost(tool.server_url, `${param}.server_url`);
    if (!checked.ok) return checked;
    const headers = inlineHeaders(tool, param);
    if (!headers.ok) return headers;
    // OpenAI's default: every call waits for approval unless the request says otherwise.
    return ok({ label, url: tool.server_url, headers: headers.value, allowedTools: requested, approvals: [approval ?? "always"], param, stored: false });
  }
  if (tool.server_url !== undefined && tool.server_url !== null) return fail(invalid(`${param}.server_url`, "server_url must be a URL."));
  for (const field of ["headers", "authorization"] as const) {
    if (tool[field] !== undefined && tool[field] !== null) {
      return fail(invalid(`${param}.${field}`, `The stored MCP server ${label} sends its own credentials: ${field} is refused. Give server_url to use a server of your own.`));
    }
  }
  const stored = await deps.loadServer(workspaceId, label);
  if (!stored) return fail(invalid(`${param}.server_label`, `No MCP server labelled ${label} is stored in this workspace; give server_url for a server of your own.`));
  const headers = openMcpHeaders(stored, deps.secrets);
  if (headers === null) return fail(new GatewayError("invalid_request", `The credentials stored for MCP server ${label} no longer open; save them again.`, { param: `${param}.server_label` }));
  const allowed = stored.allowedTools === null ? requested : new Set([...stored.allowedTools].filter((name) => requested === null || requested.has(name)));
  const approvals = approval === undefined ? [stored.requireApproval] : [stored.requireApproval, approval];
  return ok({ label, url: stored.url, headers, allowedTools: allowed, approvals, param, stored: true });
}

/** The tool names a request allows: null for every tool (absent), `invalid` for a malformed value. */
function requestedTools(value: unknown): ReadonlySet<string> | null | "invalid" {
  if (value === undefined || value === null) return null;
  const names = Array.isArray(value) ? value : isObject(value) ? value.tool_names : undefined;
  if (!Array.isArray(names) || !names.every((name) => typeof name === "string")) return "invalid";
  return new Set(names);
}

/** An inline server's headers, under the rule a stored server's are saved under (no header the transport sets itself). */
function inlineHeaders(tool: Record<string, unknown>, param: string): Result<Record<string, string>, GatewayError> {
  const headers: Record<string, string> = {};
  if (tool.headers !== undefined && tool.headers !== null) {
    if (!isObject(tool.headers)) return fail(invalid(`${param}.headers`, "headers must be an object of strings."));
    for (const [name, value] of Object.entries(tool.headers)) {
      const problem = mcpHeaderProblem(name, value);
      if (problem !== null) return fail(invalid(`${param}.headers`, `headers.${name.slice(0, 64)}: ${problem}`));
      headers[name] = value as string;
    }
  }
  if (tool.authorization !== undefined && tool.authorization !== null) {
    if (typeof tool.authorization !== "string" || mcpHeaderProblem("Authorization", tool.authorization) !== null) {
      return fail(invalid(`${param}.authorization`, "authorization must be a token a header can carry."));
    }
    for (const name of Object.keys(headers)) if (name.toLowerCase() === "authorization") delete headers[name];
    headers.Authorization = `Bearer ${tool.authorization}`;
  }
  return ok(headers);
}

function invalid(param: string, message: string): GatewayError {
  return new GatewayError("invalid_request", message, { param });
}
