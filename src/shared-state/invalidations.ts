import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { GatewayKeyService } from "../control-plane/gateway-key-service.ts";
import { CACHED_KINDS, type ControlPlaneCache } from "../control-plane/cache.ts";
import type { SharedRedis } from "./redis.ts";

/** The Redis channel replicas announce control-plane changes on. */
export const INVALIDATION_CHANNEL = "gateway:invalidations";

const SemanticChange = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("put"), id: z.string() }),
  z.object({ kind: z.literal("delete"), ids: z.array(z.string()) }),
]);
/** An entry of the semantic cache stored (the others load it from the store) or gone (they drop it). */
export type SharedSemanticChange = z.infer<typeof SemanticChange>;

/** The semantic cache as the invalidations see it (`cache/semantic-cache.ts`). */
export interface SemanticCacheReplica {
  onChange(listener: (change: SharedSemanticChange) => void): void;
  applyRemote(change: SharedSemanticChange): Promise<void>;
}

const Message = z.discriminatedUnion("type", [
  z.object({ type: z.literal("control-plane"), origin: z.string(), kind: z.enum(CACHED_KINDS), workspaceId: z.string(), key: z.string() }),
  z.object({ type: z.literal("api-key"), origin: z.string(), keyHash: z.string() }),
  z.object({ type: z.literal("semantic-cache"), origin: z.string(), change: SemanticChange }),
]);
type Message = z.infer<typeof Message>;

/**
 * Shares cache invalidations across replicas: every `forget` of this replica's control-plane
 * cache and key cache is published on `INVALIDATION_CHANNEL`, and what other replicas publish
 * is forgotten here, so a change made through one replica is used by all within milliseconds.
 * The semantic cache's entries travel the same way: one stored is announced and loaded from the
 * store by the others, one evicted is dropped by all.
 * When Redis is down a message is lost and the caches' TTLs bound staleness instead. Never throws.
 */
export function shareInvalidations(
  redis: SharedRedis,
  caches: { controlPlane: ControlPlaneCache; keys: GatewayKeyService; semantic?: SemanticCacheReplica | null },
): { close(): void } {
  const origin = randomUUID();
  const publish = (message: Message): void => {
    if (!redis.available) return;
    redis.client.publish(INVALIDATION_CHANNEL, JSON.stringify(message)).catch(() => undefined);
  };
  caches.controlPlane.onForget((kind, workspaceId, key) => publish({ type: "control-plane", origin, kind, workspaceId, key }));
  caches.keys.onForget((keyHash) => publish({ type: "api-key", origin, keyHash }));
  caches.semantic?.onChange((change) => publish({ type: "semantic-cache", origin, change }));

  const subscriber = redis.subscriber();
  subscriber.subscribe(INVALIDATION_CHANNEL).catch(() => undefined);
  subscriber.on("message", (channel: string, text: string) => {
    if (channel !== INVALIDATION_CHANNEL) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    const message = Message.safeParse(parsed);
    if (!message.success || message.data.origin === origin) return;
    const data = message.data;
    if (data.type === "control-plane") caches.controlPlane.forgetHere(data.kind, data.workspaceId, data.key);
    else if (data.type === "api-key") caches.keys.forgetHere(data.keyHash);
    else void caches.semantic?.applyRemote(data.change);
  });
  return { close: () => subscriber.disconnect() };
}
