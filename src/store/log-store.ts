import type { AnalyticsRepository } from "./analytics-repository.ts";
import type { ExperimentOutcomesRepository } from "./experiment-outcomes-repository.ts";
import type { FeedbackRepository } from "./feedback-repository.ts";
import type { RetentionStep } from "./log-retention.ts";
import type { LogsRepository } from "./logs-repository.ts";

/**
 * Where request logs, their analytics and feedback live: the main store's own tables (SQLite or
 * PostgreSQL, `openStore`) or ClickHouse (`src/clickhouse/`). The logs
 * API, export, analytics, feedback, traces, experiments' results, the log writer and retention go only through this.
 */
export interface LogStore {
  logs: LogsRepository;
  analytics: AnalyticsRepository;
  feedback: FeedbackRepository;
  /** Sums of experiments' logs and feedback per variant (`experiments/`). */
  experimentOutcomes: ExperimentOutcomesRepository;
  /**
   * Removes some of what expired before `cutoffMs` (at most `batch` logs where the store deletes
   * rows; whole days where it drops partitions). Call again while it removed anything.
   */
  deleteExpiredStep(cutoffMs: number, batch: number): Promise<RetentionStep>;
}
