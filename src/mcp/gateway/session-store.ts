import type { SharedRedis } from "../../shared-state/redis.ts";

/** What the upstream server knows of one gateway session: its own session id and the protocol it agreed. */
export interface UpstreamLeg {
  sessionId: string | null;
  protocolVersion: string | null;
}

/**
 * One MCP session a client holds with the gateway (`Mcp-Session-Id`). The gateway's id is its
 * own; each upstream server the session reached has a session of its own, kept here, so a
 * request may arrive at any replica and a server that lost its session can be initialised again
 * with what the client first sent.
 */
export interface GatewaySession {
  id: string;
  workspaceId: string;
  /** The key that opened it: no other key may use it. */
  apiKeyId: string;
  /** The stored server (`/mcp/{label}`), or null for the workspace's merged server (`/mcp`). */
  label: string | null;
  /** The client's `initialize` params, replayed to a server that must be initialised again. */
  initialize: Record<string, unknown>;
  upstream: Record<string, UpstreamLeg>;
}

export interface SessionStore {
  get(id: string): Promise<GatewaySession | undefined>;
  put(session: GatewaySession): Promise<void>;
  delete(id: string): Promise<void>;
}

/** How long an idle session is kept. */
export const SESSION_TTL_MS = 24 * 60 * 60 * 1000;
const MAX_LOCAL_SESSIONS = 50_000;

/**
 * Sessions in process, and in Redis when the gateway has one: a replica that has not seen a
 * session reads it there, and every change is written through. Reads of a session this replica
 * holds make no round trip. Never throws; a Redis that fails is treated as holding nothing.
 */
export function sessionStore(redis: SharedRedis | null, now: () => number = Date.now): SessionStore {
  const local = new Map<string, { session: GatewaySession; seenAt: number }>();
  const remember = (session: GatewaySession): void => {
    local.delete(session.id);
    local.set(session.id, { session, seenAt: now() });
    if (local.size > MAX_LOCAL_SESSIONS) local.delete(local.keys().next().value as string);
  };
  const redisKey = (id: string): string => `gateway:mcp:session:${id}`;
  return {
    async get(id) {
      const held = local.get(id);
      if (held && now() - held.seenAt < SESSION_TTL_MS) {
        held.seenAt = now();
        return held.session;
      }
      local.delete(id);
      if (!redis?.available) return undefined;
      const text = await redis.client.get(redisKey(id)).catch(() => null);
      if (!text) return undefined;
      const session = JSON.parse(text) as GatewaySession;
      remember(session);
      return session;
    },
    async put(session) {
      remember(session);
      if (redis?.available) await redis.client.set(redisKey(session.id), JSON.stringify(session), "PX", SESSION_TTL_MS).catch(() => undefined);
    },
    async delete(id) {
      local.delete(id);
      if (redis?.available) await redis.client.del(redisKey(id)).catch(() => undefined);
    },
  };
}
