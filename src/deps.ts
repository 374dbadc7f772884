import type { OperationDescriptor } from "./operation/descriptor.ts";
import type { AnswerCache } from "./cache/response-cache.ts";
import type { GatewayKeyService } from "./control-plane/gateway-key-service.ts";
import type { GatewayConfig } from "./config.ts";
import type { ControlPlaneCache } from "./control-plane/cache.ts";
import type { CircuitBreakers } from "./pipeline/circuit-breaker.ts";
import type { InflightTracker } from "./lib/inflight.ts";
import type { RealtimeSessions } from "./pipeline/realtime-session.ts";
import type { ConnectPin } from "./net/pinned-fetch.ts";
import type { FetchLike } from "./net/upstream-call.ts";
import type { UpstreamTls } from "./net/upstream-tls.ts";
import type { CheckCustomHost } from "./net/custom-host.ts";
import type { LogWriter } from "./logging/log-writer.ts";
import type { SecretBox } from "./crypto/secret-box.ts";
import type { SharedRedis } from "./shared-state/redis.ts";
import type { SpendMeter } from "./spend/spend-meter.ts";
import type { OpenedWebhooks } from "./webhooks/open-webhooks.ts";
import type { RunBreaker } from "./runs/run-breaker.ts";
import type { Reconciler } from "./reconcile/reconciler.ts";
import type { Store } from "./store/open-store.ts";
import type { GatewayMetrics } from "./telemetry/gateway-metrics.ts";
import type { McpGateway } from "./mcp/gateway/mcp-gateway.ts";
import type { ExperimentGuards } from "./experiments/experiment-guards.ts";

/** The services every route reaches through `createApp(deps)`; each is swappable in tests. */
export interface GatewayDeps {
  /** The embeddings operation (its route file's descriptor): the semantic cache embeds through it. */
  embeddings: OperationDescriptor;
  config: GatewayConfig;
  store: Store;
  keys: GatewayKeyService;
  logWriter: LogWriter;
  inflight: InflightTracker;
  /** Open realtime sessions (WebSocket), closed with 1001 when the gateway stops. */
  realtime: RealtimeSessions;
  /** The SSRF guard (`net/custom-host.ts`); errors name `field`, by default `x-gateway-custom-host`. */
  checkCustomHost: CheckCustomHost;
  /** Pinned to the guard's checked addresses (`net/pinned-fetch.ts`) and presenting mTLS when configured. */
  fetch: FetchLike;
  /** The guard's connect-time answer for a host name (`CustomHostGuard.addressesForConnect`): what sockets outside `fetch` (realtime) dial. */
  addressesForConnect: ConnectPin["addressesForConnect"];
  version: string;
  /** Request-path reads of configs, virtual keys, guardrails and prompts; writers call `forget`. */
  controlPlane: ControlPlaneCache;
  /** Encryption at rest of upstream secrets (virtual keys). */
  secrets: SecretBox;
  /** Shared state across replicas (`GATEWAY_REDIS_URL`); null runs everything in process. */
  redis: SharedRedis | null;
  /** Circuit breakers of config targets (`cb_config`), through `redis` when there is one. */
  breakers: CircuitBreakers;
  /** `UPSTREAM_MTLS_*` as read at start (`deps.fetch` presents it too); null without mutual TLS. */
  upstreamTls: UpstreamTls | null;
  /** Cached answers (configs with `cache`): in Redis when it is configured, else in memory. */
  cache: AnswerCache;
  /** Budgets and rate limits of every scope (`spend/`). */
  spend: SpendMeter;
  /** Webhook events and their deliveries, sent in the background (`webhooks/`). */
  webhooks: OpenedWebhooks;
  /** The breaker of agent runs (`runs/`): `countToolCall` counts an MCP tool call into its run. */
  runs: RunBreaker;
  /** Virtual keys' bills compared with their providers' reports (`reconcile/`): on demand and daily. */
  reconciler: Reconciler;
  /** Prometheus metrics for `GET /metrics`; null when they are off. */
  metrics: GatewayMetrics | null;
  /** The MCP gateway (`/mcp`): the workspace's stored MCP servers served to MCP clients. */
  mcp: McpGateway;
  /** Running experiments' guards, checked off the request path (`experiments/`). */
  experimentGuards: ExperimentGuards;
}
