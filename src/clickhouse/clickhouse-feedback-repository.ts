import { FEEDBACK_LIST_LIMIT, type FeedbackRecord, type FeedbackRepository } from "../store/feedback-repository.ts";
import type { ClickHouseConnection } from "./clickhouse-connection.ts";
import { num, str } from "./clickhouse-sql.ts";

/** Feedback kept beside the logs in ClickHouse, read per workspace and trace. */
export function createClickHouseFeedbackRepository(connection: ClickHouseConnection): FeedbackRepository {
  return {
    async create(feedback) {
      const pairs = Object.entries(feedback.metadata);
      await connection.insert("feedback", [
        {
          id: feedback.id,
          organisation_id: feedback.organisationId,
          workspace_id: feedback.workspaceId,
          owner_id: feedback.ownerId,
          updated_by: feedback.updatedBy,
          trace_id: feedback.traceId,
          value: feedback.value,
          weight: feedback.weight,
          "meta.key": pairs.map(([key]) => key),
          "meta.value": pairs.map(([, value]) => value),
          created_ms: Date.parse(feedback.createdAt),
        },
      ]);
      return feedback;
    },
    async listByTrace(workspaceId, traceId) {
      const rows = await connection.rows<Record<string, unknown>>(
        `SELECT id, organisation_id, workspace_id, owner_id, updated_by, trace_id, value, weight, meta.key, meta.value, created_ms
         FROM feedback WHERE workspace_id = ${str(workspaceId)} AND trace_id = ${str(traceId)}
         ORDER BY id LIMIT 1 BY id LIMIT ${num(FEEDBACK_LIST_LIMIT)}`,
      );
      return rows.map(fromRow);
    },
  };
}

function fromRow(row: Record<string, unknown>): FeedbackRecord {
  const keys = (row["meta.key"] ?? []) as string[];
  const values = (row["meta.value"] ?? []) as string[];
  return {
    id: String(row.id),
    organisationId: String(row.organisation_id),
    workspaceId: String(row.workspace_id),
    ownerId: (row.owner_id as string | null) ?? null,
    updatedBy: (row.updated_by as string | null) ?? null,
    traceId: String(row.trace_id),
    value: Number(row.value),
    weight: Number(row.weight),
    metadata: Object.fromEntries(keys.map((key, i) => [key, values[i] ?? ""])),
    createdAt: new Date(Number(row.created_ms)).toISOString(),
  };
}
