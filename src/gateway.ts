import { createApp } from "./app.ts";
import type { GatewayApp } from "./app-env.ts";
import { DEFAULT_ORGANISATION_ID, DEFAULT_WORKSPACE_ID } from "./auth/auth-context.ts";
import { displayPrefix, generateGatewayKeySecret, hashGatewayKey } from "./auth/gateway-key-secret.ts";
import { GatewayKeyService } from "./auth/gateway-key-service.ts";
import type { GatewayConfig } from "./config.ts";
import { ControlPlaneCache } from "./control-plane/cache.ts";
import { createSecretBox, loadMasterKey } from "./crypto/secret-box.ts";
import { openWorkerLogSink, type WorkerLike } from "./logging/worker-log-sink.ts";
import { createCustomHostGuard } from "./core/custom-host.ts";
import { isoNow, uuidv4 } from "./core/ids.ts";
import { InflightTracker } from "./core/inflight.ts";
import { RealtimeSessions } from "./core/realtime-session.ts";
import type { FetchLike } from "./core/upstream-call.ts";
import type { GatewayDeps } from "./deps.ts";
import { startLogRetention } from "./logging/log-retention-timer.ts";
import { LogWriter } from "./logging/log-writer.ts";
import { storeLogSink } from "./logging/store-log-sink.ts";
import { openStore, type Store } from "./store/open-store.ts";
import { sealStoredGuardrailHeaders } from "./store/seal-guardrail-headers.ts";
import { checkPriceTable } from "./providers/price-table.ts";
import packageJson from "../package.json" with { type: "json" };

export interface Gateway {
  app: GatewayApp;
  deps: GatewayDeps;
  /** The secret of the admin key created on first start, to print once; null otherwise. */
  bootstrapKey: string | null;
  /** Waits for in-flight requests (up to the shutdown timeout), flushes logs, closes the store. */
  drain(): Promise<{ drained: boolean }>;
}

/** Composition root: opens the store, wires the services, builds the app. */
export interface GatewayOptions {
  fetch?: FetchLike;
  /**
   * Starts the log-store worker (`logging/log-store-worker.ts`, Bun only). When given and the
   * store is an embedded SQLite file, log batches are written on that thread: embedded SQLite
   * executes synchronously and would otherwise stall the request thread while a batch is stored.
   */
  startLogWorker?: () => WorkerLike;
}

export async function createGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<Gateway> {
  checkPriceTable();
  const masterKey = await loadMasterKey({ envKey: config.GATEWAY_ENCRYPTION_KEY, dataDir: config.GATEWAY_DATA_DIR });
  const store = await openStore(config.GATEWAY_DATABASE_URL);
  const secrets = createSecretBox(masterKey);
  await sealStoredGuardrailHeaders(store.db, secrets);
  const bootstrapKey = config.GATEWAY_ADMIN_KEY ? null : await createBootstrapKey(store);
  const workerSink =
    options.startLogWorker && store.dialect === "sqlite" && config.GATEWAY_DATABASE_URL.startsWith("file:")
      ? await openWorkerLogSink(options.startLogWorker(), config.GATEWAY_DATABASE_URL)
      : null;
  const logWriter = new LogWriter(workerSink ?? storeLogSink(store.logs), {
    flushIntervalMs: config.GATEWAY_LOG_FLUSH_INTERVAL_MS,
    batchSize: config.GATEWAY_LOG_BATCH_SIZE,
    onError: (error, lost) => {
      const reason = error instanceof Error ? error.message : String(error);
      console.error(`[gateway] could not write ${lost} log record(s): ${reason}`);
    },
  });
  const retention =
    config.GATEWAY_LOG_RETENTION_DAYS === undefined
      ? null
      : startLogRetention(store.db, {
          days: config.GATEWAY_LOG_RETENTION_DAYS,
          onError: (error) => console.error(`[gateway] log retention failed: ${error instanceof Error ? error.message : String(error)}`),
        });
  const guard = createCustomHostGuard({
    trustedHosts: config.GATEWAY_TRUSTED_CUSTOM_HOSTS,
    allowPublicHosts: config.GATEWAY_ALLOW_PUBLIC_CUSTOM_HOSTS,
  });
  const deps: GatewayDeps = {
    config,
    store,
    keys: new GatewayKeyService(store.apiKeys, { adminKey: config.GATEWAY_ADMIN_KEY, ttlMs: config.GATEWAY_KEY_CACHE_TTL_MS }),
    logWriter,
    inflight: new InflightTracker(),
    realtime: new RealtimeSessions(),
    checkCustomHost: (rawUrl, field) => guard.check(rawUrl, field),
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    version: packageJson.version,
    controlPlane: new ControlPlaneCache(config.GATEWAY_CONTROL_PLANE_CACHE_TTL_MS),
    secrets,
  };
  const app = createApp(deps);

  let draining: Promise<{ drained: boolean }> | null = null;
  const drain = (): Promise<{ drained: boolean }> => {
    draining ??= (async () => {
      // A realtime session has no natural end to wait for: it is closed (1001) and logged.
      deps.realtime.closeAll();
      const drained = await deps.inflight.idle(config.GATEWAY_SHUTDOWN_TIMEOUT_MS);
      await retention?.stop();
      await logWriter.close();
      await workerSink?.close();
      await store.close();
      return { drained };
    })();
    return draining;
  };
  return { app, deps, bootstrapKey, drain };
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
  });
  return secret;
}
