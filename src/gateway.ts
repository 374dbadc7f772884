import { join } from "node:path";
import { createApp } from "./app.ts";
import { createAnswerCache } from "./cache/answer-cache.ts";
import type { GatewayApp } from "./app-env.ts";
import { DEFAULT_ORGANISATION_ID, DEFAULT_WORKSPACE_ID } from "./control-plane/auth-context.ts";
import { displayPrefix, GatewayKeyService, generateGatewayKeySecret, hashGatewayKey } from "./control-plane/gateway-key-service.ts";
import type { GatewayConfig } from "./config.ts";
import { ControlPlaneCache } from "./control-plane/cache.ts";
import { createSecretBox, loadMasterKeys } from "./crypto/secret-box.ts";
import { openWorkerLogSink, type WorkerLike } from "./logging/worker-log-sink.ts";
import { createCustomHostGuard, type CustomHostGuardOptions } from "./net/custom-host.ts";
import { isoNow, uuidv4 } from "./lib/ids.ts";
import { InflightTracker } from "./lib/inflight.ts";
import { RealtimeSessions } from "./pipeline/realtime-session.ts";
import type { FetchLike } from "./net/upstream-call.ts";
import { loadUpstreamTls, type UpstreamTls } from "./net/upstream-tls.ts";
import { upstreamFetch } from "./net/pinned-fetch.ts";
import { isProviderHost } from "./providers/catalogue.ts";
import type { GatewayDeps } from "./deps.ts";
import { embeddingOperation } from "./routes/createEmbedding.ts";
import type { McpGateway } from "./mcp/gateway/mcp-gateway.ts";
import { openMcpGateway } from "./mcp/gateway/open-mcp-gateway.ts";
import { memoryCallCounter, redisCallCounter, toolGate } from "./mcp/gateway/tool-gate.ts";
import { loadGuardrails, runGuardrailStage } from "./pipeline/guardrail-stage.ts";
import { openMcpHeaders } from "./control-plane/mcp-server-secrets.ts";
import { startLogRetention } from "./logging/log-retention-timer.ts";
import { LogWriter } from "./logging/log-writer.ts";
import { openLogSpool, type LogSpool } from "./logging/log-spool.ts";
import { reportStoreEvent } from "./logging/store-events.ts";
import { storeLogSink } from "./logging/log-record-builder.ts";
import { openStore, withLogStore, type Store } from "./store/open-store.ts";
import { connectRedis } from "./shared-state/redis.ts";
import { LocalCircuitBreakers, sharedCircuitBreakers } from "./pipeline/circuit-breaker.ts";
import { shareInvalidations } from "./shared-state/invalidations.ts";
import { openSpendMeter, type OpenedSpendMeter } from "./spend/open-spend-meter.ts";
import { openWebhooks } from "./webhooks/open-webhooks.ts";
import { budgetThresholdEvent } from "./webhooks/budget-events.ts";
import { runHaltedEvent } from "./webhooks/run-events.ts";
import { ExperimentGuards } from "./experiments/experiment-guards.ts";
import { openRunBreaker } from "./runs/open-run-breaker.ts";
import { Reconciler } from "./reconcile/reconciler.ts";
import { sealStoredGuardrailHeaders } from "./store/seal-guardrail-headers.ts";
import { startSecretResealing, type ResealReport } from "./store/reseal-secrets.ts";
import { checkPriceTable } from "./providers/price-table.ts";
import { createTelemetry, type Telemetry } from "./telemetry/telemetry.ts";
import packageJson from "../package.json" with { type: "json" };

export interface Gateway {
  app: GatewayApp;
  deps: GatewayDeps;
  /** Metrics and tracing, as configured (tests flush the spans through it). */
  telemetry: Telemetry;
  /** The secret of the admin key created on first start, to print once; null otherwise. */
  bootstrapKey: string | null;
  /** Settles when start-up re-sealing of stored secrets under the current master key ends (`control-plane/reseal-secrets.ts`); null if it failed. */
  resealed: Promise<ResealReport | null>;
  /** Settles once the semantic cache holds the entries the store kept (loaded in the background): how many. */
  semanticCacheLoaded: Promise<number>;
  /** Waits for in-flight requests (up to the shutdown timeout), flushes logs, closes the store. */
  drain(): Promise<{ drained: boolean }>;
}

/** Composition root: opens the store, wires the services, builds the app. */
export interface GatewayOptions {
  fetch?: FetchLike;
  /**
   * Starts the log-store worker (`logging/log-store-worker.ts`; the Bun and Deno entry points). When given and the
   * store is an embedded SQLite file, log batches are written on that thread: embedded SQLite
   * executes synchronously and would otherwise stall the request thread while a batch is stored.
   */
  startLogWorker?: () => WorkerLike;
  /** The mTLS files as the entry point read them (`startupUpstreamTls`); read from the config when absent. */
  upstreamTls?: UpstreamTls | null;
  /** The custom-host guard's resolver, cache lifetime and loopback rule (tests stage DNS rebinding with them). */
  customHosts?: Pick<CustomHostGuardOptions, "lookup" | "cacheTtlMs" | "trustLoopback">;
}

export async function createGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<Gateway> {
  checkPriceTable();
  const upstreamTls = options.upstreamTls === undefined ? loadUpstreamTls(config) : options.upstreamTls;
  const masterKeys = await loadMasterKeys({ envKey: config.GATEWAY_ENCRYPTION_KEY, dataDir: config.GATEWAY_DATA_DIR });
  const store = await openStores(config);
  const secrets = createSecretBox(masterKeys);
  await sealStoredGuardrailHeaders(store.db, secrets);
  // After a rotation (`GATEWAY_ENCRYPTION_KEY=new,old`) stored secrets move to the new key in
  // the background, while requests open them under either.
  const resealing = startSecretResealing(store.db, secrets, {
    onError: (error) => console.error(`[gateway] re-sealing stored secrets failed: ${error instanceof Error ? error.message : String(error)}`),
  });
  const resealed = resealing.done.then((report) => {
    if (report && report.resealed > 0 && !config.GATEWAY_QUIET) console.error(`[gateway] re-sealed ${report.resealed} stored secret row(s) under the current master key`);
    if (report && report.unopened > 0) console.error(`[gateway] ${report.unopened} stored secret(s) open under no key of GATEWAY_ENCRYPTION_KEY`);
    return report;
  });
  const bootstrapKey = config.GATEWAY_ADMIN_KEY ? null : await createBootstrapKey(store);
  const workerSink =
    options.startLogWorker && !config.GATEWAY_LOG_STORE_URL && store.dialect === "sqlite" && config.GATEWAY_DATABASE_URL.startsWith("file:")
      ? await openWorkerLogSink(options.startLogWorker(), config.GATEWAY_DATABASE_URL)
      : null;
  // Opened below, once Redis is connected; the metrics read it only when scraped.
  let spend: OpenedSpendMeter | null = null;
  // Metrics and spans are fed from each batch of finished log records, off the request path;
  // the log queue's own figures are read when metrics are scraped.
  const telemetry = await createTelemetry(config, { version: packageJson.version, logQueue: () => logWriter, spend: () => spend?.fallbackStats() ?? null });
  const spool = await openSpool(config);
  // Made once the webhooks are: a stored batch tells it which experiments to check.
  let guards: ExperimentGuards | null = null;
  const logWriter = new LogWriter(workerSink ?? storeLogSink(store.logs), {
    observer: telemetry.observer,
    // Only a batch holding an experiment's logs wakes the guards.
    onStored: (entries) => {
      if (entries.some((entry) => entry.experimentId !== null)) guards?.logged(entries);
    },
    flushIntervalMs: config.GATEWAY_LOG_FLUSH_INTERVAL_MS,
    batchSize: config.GATEWAY_LOG_BATCH_SIZE,
    maxBatchSize: config.GATEWAY_LOG_MAX_BATCH_SIZE,
    spool,
    onStoreEvent: reportStoreEvent,
    onError: (error, lost) => {
      const reason = error instanceof Error ? error.message : String(error);
      console.error(`[gateway] could not write ${lost} log record(s): ${reason}`);
    },
  });
  const retention =
    config.GATEWAY_LOG_RETENTION_DAYS === undefined
      ? null
      : startLogRetention(store, {
          days: config.GATEWAY_LOG_RETENTION_DAYS,
          onError: (error) => console.error(`[gateway] log retention failed: ${error instanceof Error ? error.message : String(error)}`),
        });
  const guard = createCustomHostGuard({
    ...options.customHosts,
    trustedHosts: config.GATEWAY_TRUSTED_CUSTOM_HOSTS,
    allowPublicHosts: config.GATEWAY_ALLOW_PUBLIC_CUSTOM_HOSTS,
    exemptHost: isProviderHost,
  });
  const controlPlane = new ControlPlaneCache(config.GATEWAY_CONTROL_PLANE_CACHE_TTL_MS);
  const redis = config.GATEWAY_REDIS_URL ? await connectRedis(config.GATEWAY_REDIS_URL, { quiet: config.GATEWAY_QUIET }) : null;
  // Serve with shared state from the first request when Redis answers at start; if it does not,
  // start anyway: state stays in process until it connects (the error is on stderr).
  await redis?.ready(2_000);
  const checkCustomHost: GatewayDeps["checkCustomHost"] = (rawUrl, field) => guard.check(rawUrl, field);
  const fetch = options.fetch ?? (await upstreamFetch(upstreamTls, guard));
  // Webhook events go out from here on, off every request's path.
  const webhooks = openWebhooks({ config, store, redis, secrets, fetch, checkCustomHost, version: packageJson.version });
  const openedSpend = await openSpendMeter({ config, store, redis, controlPlane, onThresholdCrossed: (crossing) => void webhooks.events.emit(budgetThresholdEvent(crossing)) });
  spend = openedSpend;
  const runs = openRunBreaker({ redis, onHalted: (halted) => void webhooks.events.emit(runHaltedEvent(halted)) });
  // The daily comparison of virtual keys' bills with their providers' reports, off the request path.
  const reconciler = new Reconciler({ store, secrets, fetch, checkCustomHost, emit: (event) => void webhooks.events.emit(event) });
  reconciler.startDaily();
  // Running experiments' guards, checked as their logs are stored and on a timer, off the request path.
  guards = new ExperimentGuards({
    store,
    controlPlane,
    emit: (event) => void webhooks.events.emit(event),
    intervalMs: config.GATEWAY_EXPERIMENT_GUARD_INTERVAL_MS,
    minIntervalMs: config.GATEWAY_EXPERIMENT_GUARD_MIN_INTERVAL_MS,
  });
  guards.start();
  const experimentGuards = guards;
  const keys = new GatewayKeyService(store.apiKeys, { adminKey: config.GATEWAY_ADMIN_KEY, ttlMs: config.GATEWAY_KEY_CACHE_TTL_MS });
  const answers = createAnswerCache(config, redis, store.semanticCache);
  const invalidations = redis ? shareInvalidations(redis, { controlPlane, keys, semantic: answers.cache.semantic }) : null;
  const deps: GatewayDeps = {
    config,
    store,
    keys,
    logWriter,
    inflight: new InflightTracker(),
    realtime: new RealtimeSessions(),
    checkCustomHost,
    addressesForConnect: (hostname) => guard.addressesForConnect(hostname),
    fetch,
    upstreamTls,
    version: packageJson.version,
    controlPlane,
    secrets,
    redis,
    breakers: redis ? sharedCircuitBreakers(redis) : new LocalCircuitBreakers(),
    cache: answers.cache,
    embeddings: embeddingOperation,
    spend: openedSpend.meter,
    webhooks,
    runs: runs.breaker,
    reconciler,
    metrics: telemetry.metrics,
    experimentGuards,
    mcp: mcpGatewayOf({ config, controlPlane, store, secrets, checkCustomHost, fetch, redis, logWriter, version: packageJson.version, spend: openedSpend.meter, runs: runs.breaker }),
  };
  const app = createApp(deps);

  let draining: Promise<{ drained: boolean }> | null = null;
  const drain = (): Promise<{ drained: boolean }> => {
    draining ??= (async () => {
      // A realtime session has no natural end to wait for: it is closed (1001) and logged.
      deps.realtime.closeAll();
      await resealing.stop();
      const drained = await deps.inflight.idle(config.GATEWAY_SHUTDOWN_TIMEOUT_MS);
      await retention?.stop();
      answers.close();
      await logWriter.close();
      await spool?.close();
      // The last records' spans were made as the writer closed: export them before exiting.
      await telemetry.shutdown();
      await workerSink?.close();
      await openedSpend.close();
      runs.close();
      await reconciler.close();
      await experimentGuards.close();
      await webhooks.close();
      invalidations?.close();
      await store.close();
      await deps.redis?.close();
      return { drained };
    })();
    return draining;
  };
  return { app, deps, telemetry, bootstrapKey, drain, resealed, semanticCacheLoaded: answers.loaded };
}

/** The log spool, unless turned off; a data directory that cannot hold one is reported, not fatal. */
async function openSpool(config: GatewayConfig): Promise<LogSpool | null> {
  if (config.GATEWAY_LOG_SPOOL_MAX_BYTES === 0) return null;
  const dir = config.GATEWAY_LOG_SPOOL_DIR ?? join(config.GATEWAY_DATA_DIR, "log-spool");
  try {
    return await openLogSpool(dir, { maxBytes: config.GATEWAY_LOG_SPOOL_MAX_BYTES });
  } catch (error) {
    console.error(`[gateway] no log spool in ${dir} (${error instanceof Error ? error.message : String(error)}): while the store is down, log records wait in memory only`);
    return null;
  }
}

/**
 * The main store, with its logs in ClickHouse when `GATEWAY_LOG_STORE_URL` names one. The
 * ClickHouse store's code and client are imported only then. Config filters on the logs name a
 * config by slug; configs stay in the main store, which resolves them.
 */
async function openStores(config: GatewayConfig): Promise<Store> {
  const store = await openStore(config.GATEWAY_DATABASE_URL);
  if (!config.GATEWAY_LOG_STORE_URL) return store;
  try {
    const { openClickHouseLogStore } = await import("./clickhouse/open-clickhouse-log-store.ts");
    const logStore = await openClickHouseLogStore(config.GATEWAY_LOG_STORE_URL, {
      resolveConfig: async (workspaceId, value) => (await store.configs.getBySlug(workspaceId, value))?.id ?? value,
    });
    return withLogStore(store, logStore);
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** With no admin key configured and none stored, creates one so a newcomer can call right away. */
async function createBootstrapKey(store: Store): Promise<string | null> {
  if ((await store.apiKeys.countActive()) > 0) return null;
  const secret = generateGatewayKeySecret();
  await store.apiKeys.insert({
    id: uuidv4(),
    organisationId: DEFAULT_ORGANISATION_ID,
    workspaceId: DEFAULT_WORKSPACE_ID,
    name: "bootstrap admin key",
    role: "admin",
    organisationAdmin: true,
    keyHash: hashGatewayKey(secret),
    keyPrefix: displayPrefix(secret),
    createdAt: isoNow(),
    createdBy: null,
    revokedAt: null,
    expiresAt: null,
    previousKeyHash: null,
    previousKeyExpiresAt: null,
    budget: null,
    rateLimit: null,
    mcpAccess: null,
  });
  return secret;
}

/** The MCP gateway over the gateway's services: stored servers through the control-plane cache, calls logged like model calls. */
function mcpGatewayOf(deps: Pick<GatewayDeps, "config" | "controlPlane" | "store" | "secrets" | "checkCustomHost" | "fetch" | "redis" | "logWriter" | "version" | "spend" | "runs">): McpGateway {
  const { config, controlPlane, store } = deps;
  return openMcpGateway({
    server: (workspaceId, label) => controlPlane.get("mcp-server", workspaceId, label, () => store.mcpServers.getByLabel(workspaceId, label)),
    labels: (workspaceId) => controlPlane.get("mcp-server-labels", workspaceId, "*", async () => (await store.mcpServers.list(workspaceId)).map((server) => server.label)),
    openHeaders: (record) => openMcpHeaders(record, deps.secrets),
    refusal: async (url) => {
      const checked = await deps.checkCustomHost(url, "server_url");
      return checked.ok ? null : checked.error.message;
    },
    fetch: deps.fetch,
    redis: deps.redis,
    toolGate: toolGate({
      maxResultBytes: config.GATEWAY_MCP_MAX_RESULT_BYTES,
      counter: deps.redis ? redisCallCounter(deps.redis) : memoryCallCounter(),
      budgets: {
        // A tool call is held to the budgets of its key, end user and metadata like a model call;
        // its price is known only as its log's cost, so it settles from there (no reservation).
        async admit(call) {
          const admitted = await deps.spend.admit({
            candidates: [],
            body: { kind: "none" },
            gatewayKeyId: call.caller.apiKeyId,
            workspaceId: call.caller.workspaceId,
            endUser: call.caller.user,
            metadata: call.caller.metadata,
            onFinish: (listener) => call.onRecorded(listener),
          });
          return admitted.ok ? null : admitted.error.message;
        },
      },
      runs: {
        async count(call, args) {
          const { caller } = call;
          const counted = await deps.runs.countToolCall({
            workspaceId: caller.workspaceId,
            traceId: caller.traceId,
            gatewayKeyId: caller.apiKeyId,
            endUser: caller.user,
            limits: caller.runLimits,
            server: call.server.upstream.label,
            tool: call.tool,
            arguments: args,
          });
          if (!counted.ok) return counted.error.message;
          const ticket = counted.value;
          if (ticket) call.onRecorded((entry) => ticket.settle(entry.fixedCostUsd));
          return null;
        },
      },
      guardrails: async (workspaceId, slugs) => {
        const loaded = await loadGuardrails(slugs, workspaceId, deps);
        return loaded.ok ? loaded.value : { error: loaded.error.message };
      },
      runGuardrails: runGuardrailStage,
      checkContext: { fetch: deps.fetch, checkUrl: deps.checkCustomHost },
    }),
    callTimeoutMs: config.GATEWAY_MCP_CALL_TIMEOUT_MS,
    maxMessageBytes: config.GATEWAY_MCP_MAX_MESSAGE_BYTES,
    maxLoggedBodyBytes: config.GATEWAY_MAX_LOGGED_BODY_BYTES,
    log: (entry) => deps.logWriter.enqueue(entry),
    version: deps.version,
  });
}
