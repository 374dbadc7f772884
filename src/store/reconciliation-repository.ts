import type { Kysely, Selectable } from "kysely";
import { isSealedSecret } from "../crypto/sealed-secret.ts";
import { RECONCILED_PROVIDERS, type ReconciledProvider, type ReconciliationRow, type ReconciliationSettingsRecord } from "../records/reconciliation.ts";
import type { ReconciliationRowsTable, ReconciliationSettingsTable } from "./budget-tables.ts";
import type { Database } from "./schema.ts";

/** A key's reconciliation settings as written (the daily run's mark is the store's own). */
export type NewReconciliationSettings = Omit<ReconciliationSettingsRecord, "lastDailyRun" | "updatedAt">;

/** Virtual keys' reconciliation settings and their compared rows. */
export interface ReconciliationRepository {
  get(workspaceId: string, virtualKeyId: string): Promise<ReconciliationSettingsRecord | undefined>;
  /** Creates or replaces a key's settings (keeping the daily run's mark). */
  put(settings: NewReconciliationSettings, at: string): Promise<ReconciliationSettingsRecord>;
  delete(workspaceId: string, virtualKeyId: string): Promise<boolean>;
  /** Every key's settings, across workspaces (the daily run). */
  listAll(): Promise<ReconciliationSettingsRecord[]>;
  /**
   * Marks the key as taken by the daily run of `day` when no run took it that day: true for the
   * one caller (of every replica racing) that marked it.
   */
  claimDaily(virtualKeyId: string, day: string): Promise<boolean>;
  /** Writes rows, replacing the same key, day and model. */
  putRows(workspaceId: string, rows: readonly ReconciliationRow[]): Promise<void>;
  /** The workspace's rows in `[from, to)` (days), one key's when given, newest day first. */
  rows(workspaceId: string, options: { from: string; to: string; virtualKeyId?: string; driftedOnly?: boolean; limit: number }): Promise<ReconciliationRow[]>;
}

type SettingsRow = Selectable<ReconciliationSettingsTable>;

export function createReconciliationRepository(db: Kysely<Database>): ReconciliationRepository {
  return {
    async get(workspaceId, virtualKeyId) {
      const row = await db.selectFrom("reconciliation_settings").selectAll().where("workspace_id", "=", workspaceId).where("virtual_key_id", "=", virtualKeyId).executeTakeFirst();
      return row && settingsOf(row);
    },
    async put(settings, at) {
      const columns = {
        organisation_id: settings.organisationId,
        workspace_id: settings.workspaceId,
        provider: settings.provider,
        admin_key: JSON.stringify(settings.adminKey),
        base_url: settings.baseUrl,
        project_id: settings.projectId,
        api_key_id: settings.apiKeyId,
        provider_workspace_id: settings.providerWorkspaceId,
        drift_threshold_usd: settings.driftThresholdUsd,
        drift_threshold_ratio: settings.driftThresholdRatio,
        updated_by: settings.updatedBy,
        updated_at: at,
      };
      await db
        .insertInto("reconciliation_settings")
        .values({ virtual_key_id: settings.virtualKeyId, ...columns, last_daily_run: null, created_at: settings.createdAt })
        .onConflict((conflict) => conflict.column("virtual_key_id").doUpdateSet(columns))
        .execute();
      const row = await db.selectFrom("reconciliation_settings").selectAll().where("virtual_key_id", "=", settings.virtualKeyId).executeTakeFirstOrThrow();
      return settingsOf(row);
    },
    async delete(workspaceId, virtualKeyId) {
      const result = await db.deleteFrom("reconciliation_settings").where("workspace_id", "=", workspaceId).where("virtual_key_id", "=", virtualKeyId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
    async listAll() {
      return (await db.selectFrom("reconciliation_settings").selectAll().execute()).map(settingsOf);
    },
    async claimDaily(virtualKeyId, day) {
      const result = await db
        .updateTable("reconciliation_settings")
        .set({ last_daily_run: day })
        .where("virtual_key_id", "=", virtualKeyId)
        .where((eb) => eb.or([eb("last_daily_run", "is", null), eb("last_daily_run", "<", day)]))
        .executeTakeFirst();
      return result.numUpdatedRows === 1n;
    },
    async putRows(workspaceId, rows) {
      if (rows.length === 0) return;
      await db.transaction().execute(async (trx) => {
        for (const row of rows) {
          const values = {
            workspace_id: workspaceId,
            gateway_cost_usd: row.gatewayCostUsd,
            gateway_input_tokens: row.gatewayInputTokens,
            gateway_output_tokens: row.gatewayOutputTokens,
            gateway_requests: row.gatewayRequests,
            provider_cost_usd: row.providerCostUsd,
            provider_input_tokens: row.providerInputTokens,
            provider_output_tokens: row.providerOutputTokens,
            drift_usd: row.driftUsd,
            drift_ratio: row.driftRatio,
            drifted: row.drifted ? 1 : 0,
            checked_at: row.checkedAt,
          };
          await trx
            .insertInto("reconciliation_rows")
            .values({ virtual_key_id: row.virtualKeyId, date: row.date, model: row.model, ...values })
            .onConflict((conflict) => conflict.columns(["virtual_key_id", "date", "model"]).doUpdateSet(values))
            .execute();
        }
      });
    },
    async rows(workspaceId, options) {
      let query = db.selectFrom("reconciliation_rows").selectAll().where("workspace_id", "=", workspaceId).where("date", ">=", options.from).where("date", "<", options.to);
      if (options.virtualKeyId) query = query.where("virtual_key_id", "=", options.virtualKeyId);
      if (options.driftedOnly) query = query.where("drifted", "=", 1);
      const rows = await query.orderBy("date", "desc").orderBy("virtual_key_id").orderBy("model").limit(options.limit).execute();
      return rows.map(rowOf);
    },
  };
}

function settingsOf(row: SettingsRow): ReconciliationSettingsRecord {
  const adminKey: unknown = JSON.parse(row.admin_key);
  return {
    virtualKeyId: row.virtual_key_id,
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id,
    provider: (RECONCILED_PROVIDERS as readonly string[]).includes(row.provider) ? (row.provider as ReconciledProvider) : "openai",
    adminKey: isSealedSecret(adminKey) ? adminKey : { $sealed: "" },
    baseUrl: row.base_url,
    projectId: row.project_id,
    apiKeyId: row.api_key_id,
    providerWorkspaceId: row.provider_workspace_id,
    driftThresholdUsd: Number(row.drift_threshold_usd),
    driftThresholdRatio: Number(row.drift_threshold_ratio),
    lastDailyRun: row.last_daily_run,
    updatedBy: row.updated_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function rowOf(row: Selectable<ReconciliationRowsTable>): ReconciliationRow {
  const nullable = (value: number | null) => (value === null ? null : Number(value));
  return {
    virtualKeyId: row.virtual_key_id,
    date: row.date,
    model: row.model,
    gatewayCostUsd: Number(row.gateway_cost_usd),
    gatewayInputTokens: Number(row.gateway_input_tokens),
    gatewayOutputTokens: Number(row.gateway_output_tokens),
    gatewayRequests: Number(row.gateway_requests),
    providerCostUsd: nullable(row.provider_cost_usd),
    providerInputTokens: Number(row.provider_input_tokens),
    providerOutputTokens: Number(row.provider_output_tokens),
    driftUsd: nullable(row.drift_usd),
    driftRatio: nullable(row.drift_ratio),
    drifted: Number(row.drifted) === 1,
    checkedAt: row.checked_at,
  };
}
