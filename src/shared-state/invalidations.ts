import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { GatewayKeyService } from "../auth/gateway-key-service.ts";
import { CACHED_KINDS, type ControlPlaneCache } from "../control-plane/cache.ts";
import type { SharedRedis } from "./redis.ts";

/** The Redis channel replicas announce control-plane changes on. */
export const INVALIDATION_CHANNEL = "gateway:invalidations";

const Message = z.discriminatedUnion("type", [
  z.object({ type: z.literal("control-plane"), origin: z.string(), kind: z.enum(CACHED_KINDS), workspaceId: z.string(), key: z.string() }),
  z.object({ type: z.literal("api-key"), origin: z.string(), keyHash: z.string() }),
]);
type Message = z.infer<typeof Message>;

/**
 * Shares cache invalidations across replicas: every `forget` of this replica's control-plane
 * cache and key cache is published on `INVALIDATION_CHANNEL`, and what other replicas publish
 * is forgotten here, so a change made through one replica is used by all within milliseconds.
 * When Redis is down a message is lost and the caches' TTLs bound staleness instead. Never throws.
 */
export function shareInvalidations(redis: SharedRedis, caches: { controlPlane: ControlPlaneCache; keys: GatewayKeyService }): { close(): void } {
  const origin = randomUUID();
  const publish = (message: Message): void => {
    if (!redis.available) return;
    redis.client.publish(INVALIDATION_CHANNEL, JSON.stringify(message)).catch(() => undefined);
  };
  caches.controlPlane.onForget((kind, workspaceId, key) => publish({ type: "control-plane", origin, kind, workspaceId, key }));
  caches.keys.onForget((keyHash) => publish({ type: "api-key", origin, keyHash }));

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
    else caches.keys.forgetHere(data.keyHash);
  });
  return { close: () => subscriber.disconnect() };
}
