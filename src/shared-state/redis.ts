import type { Redis } from "ioredis";

/**
 * The gateway's one Redis connection, when `GATEWAY_REDIS_URL` is set: state that must hold
 * across replicas (rate-limit counters, spend reservations, the cache, circuit breakers,
 * control-plane invalidations) lives there. Users of it check `available` and fall back to
 * their in-process state under `GATEWAY_REDIS_FAILURE_POLICY` when it is false.
 */
export interface SharedRedis {
  client: Redis;
  /** False while the connection is down; commands then fail fast instead of queueing. */
  readonly available: boolean;
  /** Resolves once connected, or after `ms` (true when connected). Never rejects. */
  ready(ms: number): Promise<boolean>;
  /** A second connection for subscriptions (a subscribed connection can issue no other command). */
  subscriber(): Redis;
  close(): Promise<void>;
}

/**
 * Connects and never throws: a Redis that is down is reported once per outage on stderr. The
 * client library is loaded here, so a gateway without Redis never holds it in memory.
 */
export async function connectRedis(url: string, options: { quiet?: boolean } = {}): Promise<SharedRedis> {
  const { Redis } = await import("ioredis");
  const connectionOptions = {
    // Fail commands at once while disconnected rather than queue them behind a request.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    retryStrategy: (times: number) => Math.min(times * 200, 2_000),
    lazyConnect: false,
    // Commands issued in the same tick (concurrent requests' admissions) go out in one write,
    // not one write and one wake-up each.
    enableAutoPipelining: true,
  };
  const client = new Redis(url, connectionOptions);
  let available = false;
  let reported = false;
  client.on("ready", () => {
    available = true;
    if (reported && !options.quiet) console.error("[gateway] redis: connected again");
    reported = false;
  });
  client.on("error", (error: Error) => {
    if (reported) return;
    reported = true;
    // The URL may carry a password: only the error's message is printed.
    console.error(`[gateway] redis unavailable (${error.message}); shared limits fall back to GATEWAY_REDIS_FAILURE_POLICY`);
  });
  client.on("end", () => (available = false));
  client.on("close", () => (available = false));
  const subscribers: Redis[] = [];
  return {
    client,
    get available() {
      return available;
    },
    ready(ms) {
      if (available) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          client.off("ready", onReady);
          resolve(false);
        }, ms);
        const onReady = (): void => {
          clearTimeout(timer);
          resolve(true);
        };
        client.once("ready", onReady);
      });
    },
    subscriber() {
      const connection = client.duplicate({ ...connectionOptions, enableOfflineQueue: true });
      connection.on("error", () => undefined);
      subscribers.push(connection);
      return connection;
    },
    async close() {
      for (const connection of [client, ...subscribers]) connection.disconnect();
    },
  };
}
