import { Kysely } from "kysely";
import { createAnalyticsRepository, type AnalyticsRepository } from "./analytics-repository.ts";
import { createApiKeysRepository, type ApiKeysRepository } from "./api-keys-repository.ts";
import { createAuditEventsRepository, type AuditEventsRepository } from "./audit-events-repository.ts";
import { createConfigsRepository } from "./configs-repository.ts";
import type {
  ConfigsRepository,
  GuardrailsRepository,
  McpServersRepository,
  PromptsRepository,
  VirtualKeysRepository,
} from "./control-plane-repositories.ts";
import { pickDialect } from "./dialects/pick-dialect.ts";
import type { StoreDialect, StoreDialectName } from "./dialects/store-dialect.ts";
import { createFeedbackRepository, type FeedbackRepository } from "./feedback-repository.ts";
import { createStoredResponsesRepository, type StoredResponsesRepository } from "./stored-responses-repository.ts";
import { createBatchesRepository, type BatchesRepository } from "./batches-repository.ts";
import { createSemanticCacheRepository, type SemanticCacheRepository } from "./semantic-cache-repository.ts";
import { createGuardrailsRepository } from "./guardrails-repository.ts";
import { createMcpServersRepository } from "./mcp-servers-repository.ts";
import { deleteExpiredStep, type RetentionStep } from "./log-retention.ts";
import type { LogStore } from "./log-store.ts";
import { createLogsRepository, type LogsRepository } from "./logs-repository.ts";
import { keepLogPartitions } from "./log-partitions.ts";
import { keepRollupsBuilt } from "./log-rollup-build.ts";
import { migrateToLatest } from "./migrate.ts";
import { migrations } from "./migrations/index.ts";
import { OutageEpisodePlugin } from "./store-unavailable.ts";
import { createPromptsRepository } from "./prompts-repository.ts";
import { createSpendRepository, type SpendRepository } from "./spend-repository.ts";
import type { Database } from "./schema.ts";
import { createAnalyticsDimensionsRepository, type AnalyticsDimensionsRepository } from "./analytics-dimensions-repository.ts";
import { createVirtualKeysRepository } from "./virtual-keys-repository.ts";
import { createBudgetsRepository, type BudgetsRepository } from "./budgets-repository.ts";
import { createWebhooksRepository, type WebhooksRepository } from "./webhooks-repository.ts";
import { createReconciliationRepository, type ReconciliationRepository } from "./reconciliation-repository.ts";
import { createExperimentsRepository, type ExperimentsRepository } from "./experiments-repository.ts";
import { createExperimentOutcomesRepository, type ExperimentOutcomesRepository } from "./experiment-outcomes-repository.ts";

/**
 * The repositories an audited control-plane write uses, all on one handle: the store's own, or,
 * inside `Store.transaction`, the transaction's.
 */
export interface ControlPlaneStore {
  apiKeys: ApiKeysRepository;
  configs: ConfigsRepository;
  virtualKeys: VirtualKeysRepository;
  prompts: PromptsRepository;
  guardrails: GuardrailsRepository;
  mcpServers: McpServersRepository;
  /** The metadata keys each workspace declared as analytics dimensions (kept here even when logs are in ClickHouse). */
  analyticsDimensions: AnalyticsDimensionsRepository;
  audit: AuditEventsRepository;
  /** Budgets of every scope (`spend/`), a key's own among them. */
  budgets: BudgetsRepository;
  /** Webhooks and their deliveries (`webhooks/`). */
  webhooks: WebhooksRepository;
  /** Virtual keys' bills read from their providers, and the rows compared (`reconcile/`). */
  reconciliation: ReconciliationRepository;
  /** Experiments and their variants (`experiments/`). */
  experiments: ExperimentsRepository;
}

/**
 * The gateway's persistent state: one database, one repository per aggregate. Its log store
 * (`logs`, `analytics`, `feedback`, `deleteExpiredStep`) is the database's own tables, or
 * ClickHouse's when the gateway is given one (`withLogStore`).
 */
export interface Store extends ControlPlaneStore, LogStore {
  db: Kysely<Database>;
  dialect: StoreDialectName;
  /**
   * Runs `work` in one transaction: every write it makes through `tx` lands, or (when it throws)
   * none does. Inside, use only `tx`: on SQLite the store has one connection, which the
   * transaction holds, so a query on the store itself would wait forever.
   */
  transaction<T>(work: (tx: ControlPlaneStore) => Promise<T>): Promise<T>;
  logs: LogsRepository;
  /** Sums over the logs (rollups and raw rows) for `/v1/analytics`. */
  analytics: AnalyticsRepository;
  feedback: FeedbackRepository;
  experimentOutcomes: ExperimentOutcomesRepository;
  deleteExpiredStep(cutoffMs: number, batch: number): Promise<RetentionStep>;
  /** Responses answers kept for providers without a Responses API of their own. */
  storedResponses: StoredResponsesRepository;
  /** The gateway's own batches and their files, over providers whose batch APIs are not OpenAI's (`batches/`). */
  batches: BatchesRepository;
  /** The semantic cache's entries with their embeddings (`cache/semantic-cache.ts`). */
  semanticCache: SemanticCacheRepository;
  /** Settled spend per key and budget period (`spend/`). */
  spend: SpendRepository;
  /** Closes the connection(s); the store is unusable afterwards. */
  close(): Promise<void>;
}

/**
 * Opens the store the URL names and migrates it to the latest schema.
 * - `postgres://…` / `postgresql://…`: PostgreSQL (tables in the connection's current schema).
 * - `file:<path>` / `:memory:`: the embedded SQLite store; the file's folder is created when
 *   missing. Its engine is the runtime's: Bun's built-in SQLite under Bun, libSQL under Node.
 * Rejects on any other URL, when the database cannot be reached, or when a migration fails.
 */
export async function openStore(url: string): Promise<Store> {
  const dialect = await pickDialect(url);
  const db = new Kysely<Database>({ dialect: dialect.dialect, plugins: [...(dialect.plugins ?? []), new OutageEpisodePlugin()] });
  try {
    const migrated = await migrateToLatest(db, dialect);
    // A store created now holds no rows to measure. Failing, the refresh leaves the statistics
    // as they were: the engine's own pass refreshes them later.
    const upgraded = migrated.length > 0 && !migrated.includes(FIRST_MIGRATION);
    if (upgraded) await dialect.analyseAfterBulkChange?.(db).catch(() => {});
  } catch (error) {
    await db.destroy();
    throw error;
  }
  let stopPartitions: () => Promise<void> = () => Promise.resolve();
  try {
    if (dialect.name === "postgres") {
      stopPartitions = await keepLogPartitions(db, (error) => console.error(`[store] log partitions: ${describe(error)}`));
      const stopRollups = keepRollupsBuilt(db, (error) => console.error(`[store] log rollups: ${describe(error)}`));
      const stopLogPartitions = stopPartitions;
      stopPartitions = async () => {
        await stopRollups();
        await stopLogPartitions();
      };
    }
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const stopStatistics = await keepPlannerStatisticsFresh(db, dialect);
  return {
    db,
    dialect: dialect.name,
    ...controlPlaneRepositories(db),
    transaction: (work) => db.transaction().execute((trx) => work(controlPlaneRepositories(trx))),
    logs: createLogsRepository(db, dialect),
    analytics: createAnalyticsRepository(db),
    feedback: createFeedbackRepository(db),
    experimentOutcomes: createExperimentOutcomesRepository(db),
    deleteExpiredStep: (cutoffMs, batch) => deleteExpiredStep(db, cutoffMs, batch),
    storedResponses: createStoredResponsesRepository(db),
    batches: createBatchesRepository(db),
    semanticCache: createSemanticCacheRepository(db),
    spend: createSpendRepository(db),
    close: async () => {
      stopStatistics();
      await stopPartitions();
      await db.destroy();
    },
  };
}

function controlPlaneRepositories(db: Kysely<Database>): ControlPlaneStore {
  return {
    apiKeys: createApiKeysRepository(db),
    configs: createConfigsRepository(db),
    virtualKeys: createVirtualKeysRepository(db),
    prompts: createPromptsRepository(db),
    guardrails: createGuardrailsRepository(db),
    mcpServers: createMcpServersRepository(db),
    analyticsDimensions: createAnalyticsDimensionsRepository(db),
    audit: createAuditEventsRepository(db),
    budgets: createBudgetsRepository(db),
    webhooks: createWebhooksRepository(db),
    reconciliation: createReconciliationRepository(db),
    experiments: createExperimentsRepository(db),
  };
}

const FIRST_MIGRATION = Object.keys(migrations)[0]!;

/** How often the planner's statistics are refreshed where the engine does not do it itself. */
const STATISTICS_INTERVAL_MS = 10 * 60_000;

/**
 * Refreshes the planner's statistics now and then every few minutes, as the log table grows.
 * A failed refresh (say, the database busy) only leaves the previous statistics in place.
 * Resolves, after the first refresh, to the stop function.
 */
async function keepPlannerStatisticsFresh(db: Kysely<Database>, dialect: StoreDialect): Promise<() => void> {
  const refresh = dialect.refreshPlannerStatistics;
  if (!refresh) return () => {};
  const run = (): Promise<void> => refresh(db).catch(() => {});
  await run();
  const timer = setInterval(() => void run(), STATISTICS_INTERVAL_MS);
  timer.unref?.();
  return () => clearInterval(timer);
}

/**
 * The store with its logs, analytics, feedback and retention served by `logStore` (ClickHouse)
 * instead of its own tables; the control plane stays where it is. Closing it closes both.
 */
export function withLogStore(store: Store, logStore: LogStore & { close(): Promise<void> }): Store {
  return {
    ...store,
    logs: logStore.logs,
    analytics: logStore.analytics,
    feedback: logStore.feedback,
    experimentOutcomes: logStore.experimentOutcomes,
    deleteExpiredStep: (cutoffMs, batch) => logStore.deleteExpiredStep(cutoffMs, batch),
    close: async () => {
      await logStore.close();
      await store.close();
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
