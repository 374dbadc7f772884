import type { ApiKey } from "../generated/schemas.gen.ts";
import type { ApiKeyRecord } from "../records/api-key.ts";
import type { AuthContext } from "./auth-context.ts";
import { GatewayError } from "../errors.ts";
import { budgetView, rateLimitView } from "./virtual-key-fields.ts";
import { runLimitsView } from "./run-limit-fields.ts";

/** The public shape of a stored key: never the hash, never the secret. */
export function apiKeyView(record: ApiKeyRecord): ApiKey {
  return {
    id: record.id,
    object: "api_key",
    name: record.name,
    role: record.role,
    organisation_id: record.organisationId,
    workspace_id: record.workspaceId,
    key_prefix: record.keyPrefix,
    created_at: record.createdAt,
    revoked_at: record.revokedAt,
    expires_at: record.expiresAt,
    previous_key_expires_at: record.previousKeyHash === null ? null : record.previousKeyExpiresAt,
    budget: budgetView(record.budget),
    rate_limit: rateLimitView(record.rateLimit),
    mcp_access: mcpAccessView(record.mcpAccess),
    run_limits: runLimitsView(record.runLimits),
  };
}

/** A key's MCP access rule as the API shows it. */
function mcpAccessView(rule: ApiKeyRecord["mcpAccess"]): ApiKey["mcp_access"] {
  if (rule === null) return null;
  return { servers: rule.servers, calls_per_minute: rule.callsPerMinute ?? null, calls_per_minute_per_tool: rule.callsPerMinutePerTool ?? null };
}

/** The workspace an admin call acts on: its own, or another of its organisation for organisation admins. */
export function targetWorkspace(auth: AuthContext, requested: string | undefined): string {
  if (!requested || requested === auth.workspaceId) return auth.workspaceId;
  if (!auth.organisationAdmin) {
    throw new GatewayError("insufficient_scope", "Only an organisation admin key may act on another workspace.", { param: "workspace_id" });
  }
  return requested;
}
