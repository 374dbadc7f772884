import type { KeyBudget, KeyRateLimit } from "./control-plane.ts";
import type { RunLimits } from "./run-limits.ts";

export const API_KEY_ROLES = ["admin", "service"] as const;
export type ApiKeyRole = (typeof API_KEY_ROLES)[number];

/** A stored gateway key. The secret itself is never kept: only its SHA-256 hash. */
export interface ApiKeyRecord {
  id: string;
  organisationId: string;
  workspaceId: string;
  name: string;
  role: ApiKeyRole;
  /** May manage keys of other workspaces of its organisation (the bootstrap key). */
  organisationAdmin: boolean;
  /** Lowercase hex SHA-256 of the secret. */
  keyHash: string;
  /** First characters of the secret, safe to show so a person can tell keys apart. */
  keyPrefix: string;
  createdAt: string;
  createdBy: string | null;
  revokedAt: string | null;
  /** ISO instant from which the key is refused; null: it never expires. */
  expiresAt: string | null;
  /**
   * The hash of the secret the last rotation replaced: it still authenticates as this key until
   * `previousKeyExpiresAt` (the grace period). Both null when there is none.
   */
  previousKeyHash: string | null;
  previousKeyExpiresAt: string | null;
  /** The key's own budget, on top of any virtual key's (`spend/`). */
  budget: KeyBudget | null;
  rateLimit: KeyRateLimit | null;
  /** The stored MCP servers and tools the key may reach through the MCP gateway; null: all of its workspace. */
  mcpAccess: McpAccessRule | null;
  /** The breaker of every run made with the key; absent or null: none. */
  runLimits?: RunLimits | null;
}

/**
 * A key's MCP access rule: the servers (by label) it may use through `/mcp` (null: all of its
 * workspace), per server the tools it may list and call (null: every tool the server allows),
 * and its tool calls per minute, in all and per tool (null: unlimited).
 */
export interface McpAccessRule {
  servers: Record<string, { tools: string[] | null }> | null;
  callsPerMinute?: number | null;
  callsPerMinutePerTool?: number | null;
}
