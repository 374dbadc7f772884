import type { Kysely, Selectable } from "kysely";
import type { Ownership } from "../records/control-plane.ts";
import { parseMetadata } from "../records/stored-json.ts";
import { ownershipColumns, ownershipOf } from "./ownership-columns.ts";
import type { Database, FeedbackTable } from "./schema.ts";

/** A score a caller attached to a trace. `ownerId`/`updatedBy`: the key that wrote it. */
export interface FeedbackRecord extends Ownership {
  /** UUIDv7, so ordering by id is ordering by time. */
  id: string;
  traceId: string;
  /** -10..10. */
  value: number;
  /** 0..1. */
  weight: number;
  metadata: Record<string, string>;
  createdAt: string;
}

/** The most feedback `listByTrace` returns. */
export const FEEDBACK_LIST_LIMIT = 1_000;

/** Stored feedback. Every read is scoped to one workspace: another's feedback is never seen. */
export interface FeedbackRepository {
  create(feedback: FeedbackRecord): Promise<FeedbackRecord>;
  /** The workspace's feedback on a trace, oldest first, at most `FEEDBACK_LIST_LIMIT`. */
  listByTrace(workspaceId: string, traceId: string): Promise<FeedbackRecord[]>;
}

type FeedbackRow = Selectable<FeedbackTable>;

export function createFeedbackRepository(db: Kysely<Database>): FeedbackRepository {
  return {
    async create(feedback) {
      await db.insertInto("feedback").values(toRow(feedback)).execute();
      return feedback;
    },
    async listByTrace(workspaceId, traceId) {
      const rows = await db
        .selectFrom("feedback")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .where("trace_id", "=", traceId)
        .orderBy("id", "asc")
        .limit(FEEDBACK_LIST_LIMIT)
        .execute();
      return rows.map(fromRow);
    },
  };
}

function toRow(feedback: FeedbackRecord): FeedbackRow {
  return {
    id: feedback.id,
    ...ownershipColumns(feedback),
    trace_id: feedback.traceId,
    value: feedback.value,
    weight: feedback.weight,
    metadata: JSON.stringify(feedback.metadata),
    created_at: feedback.createdAt,
  };
}

function fromRow(row: FeedbackRow): FeedbackRecord {
  return {
    id: row.id,
    ...ownershipOf(row),
    traceId: row.trace_id,
    value: row.value,
    weight: row.weight,
    metadata: parseMetadata(row.metadata),
    createdAt: row.created_at,
  };
}
