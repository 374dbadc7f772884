import type { GatewayKeyService } from "./auth/gateway-key-service.ts";
import type { GatewayConfig } from "./config.ts";
import type { ControlPlaneCache } from "./control-plane/cache.ts";
import type { InflightTracker } from "./core/inflight.ts";
import type { RealtimeSessions } from "./core/realtime-session.ts";
import type { FetchLike } from "./core/upstream-call.ts";
import type { GatewayError, Result } from "./errors.ts";
import type { LogWriter } from "./logging/log-writer.ts";
import type { Store } from "./store/open-store.ts";
import type { GatewayMetrics } from "./telemetry/gateway-metrics.ts";

/** The services every route reaches through `createApp(deps)`; each is swappable in tests. */
export interface GatewayDeps {
  config: GatewayConfig;
  store: Store;
  keys: GatewayKeyService;
  logWriter: LogWriter;
  inflight: InflightTracker;
  /** Open realtime sessions (WebSocket), closed with 1001 when the gateway stops. */
  realtime: RealtimeSessions;
  /** The SSRF guard (`core/custom-host.ts`); errors name `field`, by default `x-gateway-custom-host`. */
  checkCustomHost: (rawUrl: string, field?: string) => Promise<Result<Readonly<URL>, GatewayError>>;
  fetch: FetchLike;
  version: string;
  /** Request-path reads of configs, virtual keys, guardrails and prompts; writers call `forget`. */
  controlPlane: ControlPlaneCache;
  /** Encryption at rest of upstream secrets (virtual keys). */
  secrets: SecretBox;
  /** Prometheus metrics for `GET /metrics`; null when they are off. */
  metrics: GatewayMetrics | null;
}

export interface SecretBox {
  seal(plaintext: string): string;
  /** Throws when the text was tampered with or sealed under another key. */
  open(sealed: string): string;
}
