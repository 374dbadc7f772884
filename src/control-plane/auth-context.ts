import type { KeyLimits } from "../records/control-plane.ts";
import type { ApiKeyRole, McpAccessRule } from "../records/api-key.ts";
import type { RunLimits } from "../records/run-limits.ts";

/** Who is calling: resolved from `x-gateway-api-key`, set on the request context by the auth middleware. */
export interface AuthContext {
  /** The stored key's id; `OPERATOR_KEY_ID` for the operator's `GATEWAY_ADMIN_KEY`, which is not stored. */
  keyId: string;
  organisationId: string;
  workspaceId: string;
  role: ApiKeyRole;
  organisationAdmin: boolean;
  /** The key's budget and rate limit, cached with the key; absent or null: not metered. */
  limits?: KeyLimits | null;
  /** The key's MCP access rule, cached with the key; absent or null: every server of the workspace. */
  mcpAccess?: McpAccessRule | null;
  /** The key's run limits, cached with the key; absent or null: none. */
  runLimits?: RunLimits | null;
}

/** The default organisation and workspace of a fresh gateway (and of `GATEWAY_ADMIN_KEY`). */
export const DEFAULT_ORGANISATION_ID = "00000000-0000-4000-8000-000000000001";
export const DEFAULT_WORKSPACE_ID = "00000000-0000-4000-8000-000000000002";

/** Stands for `GATEWAY_ADMIN_KEY` wherever a key id is recorded (owner_id, updated_by, logs). */
export const OPERATOR_KEY_ID = "00000000-0000-4000-8000-000000000000";

/** Stands for the gateway itself as an audit event's actor: a change no key made (a guard that stopped an experiment). */
export const GATEWAY_ACTOR_ID = "00000000-0000-4000-8000-000000000003";
