import type { Migration, MigrationProvider } from "kysely";
import * as initial from "./0001_initial.ts";
import * as controlPlane from "./0002_control_plane.ts";
import * as partialLogIndexes from "./0003_partial_log_indexes.ts";
import * as untracedLogIndex from "./0004_untraced_log_index.ts";
import * as logBodySizes from "./0005_log_body_sizes.ts";
import * as structuralSealedSecrets from "./0006_structural_sealed_secrets.ts";
import * as logAttempts from "./0007_log_attempts.ts";
import * as logConfigAndFeedback from "./0008_log_config_and_feedback.ts";
import * as logRollups from "./0009_log_rollups.ts";
import * as spendLimits from "./0010_spend_limits.ts";
import * as logCache from "./0011_log_cache.ts";
import * as virtualKeyFields from "./0012_virtual_key_fields.ts";
import * as storedResponses from "./0013_stored_responses.ts";
import * as logCostNote from "./0014_log_cost_note.ts";
import * as auditEvents from "./0015_audit_events.ts";
import * as apiKeyExpiryRotation from "./0016_api_key_expiry_rotation.ts";
import * as mcpServers from "./0020_mcp_servers.ts";
import * as semanticCache from "./0021_semantic_cache.ts";
import * as partitionedLogs from "./0022_partitioned_logs.ts";
import * as logRollupProgress from "./0023_log_rollup_progress.ts";
import * as logRollupDays from "./0024_log_rollup_days.ts";
import * as analyticsDimensions from "./0025_analytics_dimensions.ts";
import * as logRollupRankingIndex from "./0026_log_rollup_ranking_index.ts";
import * as logWriteIndexes from "./0027_log_write_indexes.ts";
import * as logRollupUserHours from "./0028_log_rollup_user_hours.ts";
import * as logMetadataPairs from "./0029_log_metadata_pairs.ts";
import * as logWorkspacePrimaryKey from "./0030_log_workspace_primary_key.ts";
import * as logCreatedIndexDropped from "./0031_log_created_index_dropped.ts";
import * as budgets from "./0040_budgets.ts";
import * as webhooks from "./0041_webhooks.ts";
import * as runLimits from "./0042_run_limits.ts";
import * as reconciliation from "./0043_reconciliation.ts";
import * as promptLabels from "./0044_prompt_labels.ts";
import * as experiments from "./0045_experiments.ts";
import * as unifiedBatches from "./0046_unified_batches.ts";
import * as logWebSearches from "./0047_log_web_searches.ts";
import * as mcpGateway from "./0032_mcp_gateway.ts";

/**
 * Every migration, listed statically so `bun build` bundles them (no filesystem scan).
 * Kysely runs them in key order: name new files `0002_<what>.ts` and add them here.
 */
export const migrations: Readonly<Record<string, Migration>> = {
  "0001_initial": initial,
  "0002_control_plane": controlPlane,
  "0003_partial_log_indexes": partialLogIndexes,
  "0004_untraced_log_index": untracedLogIndex,
  "0005_log_body_sizes": logBodySizes,
  "0006_structural_sealed_secrets": structuralSealedSecrets,
  "0007_log_attempts": logAttempts,
  "0008_log_config_and_feedback": logConfigAndFeedback,
  "0009_log_rollups": logRollups,
  "0010_spend_limits": spendLimits,
  "0011_log_cache": logCache,
  "0012_virtual_key_fields": virtualKeyFields,
  "0013_stored_responses": storedResponses,
  "0014_log_cost_note": logCostNote,
  "0015_audit_events": auditEvents,
  "0016_api_key_expiry_rotation": apiKeyExpiryRotation,
  "0020_mcp_servers": mcpServers,
  "0021_semantic_cache": semanticCache,
  "0022_partitioned_logs": partitionedLogs,
  "0023_log_rollup_progress": logRollupProgress,
  "0024_log_rollup_days": logRollupDays,
  "0025_analytics_dimensions": analyticsDimensions,
  "0026_log_rollup_ranking_index": logRollupRankingIndex,
  "0027_log_write_indexes": logWriteIndexes,
  "0028_log_rollup_user_hours": logRollupUserHours,
  "0029_log_metadata_pairs": logMetadataPairs,
  "0030_log_workspace_primary_key": logWorkspacePrimaryKey,
  "0031_log_created_index_dropped": logCreatedIndexDropped,
  "0032_mcp_gateway": mcpGateway,
  "0040_budgets": budgets,
  "0041_webhooks": webhooks,
  "0042_run_limits": runLimits,
  "0043_reconciliation": reconciliation,
  "0044_prompt_labels": promptLabels,
  "0045_experiments": experiments,
  "0046_unified_batches": unifiedBatches,
  "0047_log_web_searches": logWebSearches,
};

/** Hands Kysely's `Migrator` the static list above. */
export const staticMigrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve({ ...migrations }),
};
