import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

/** A file the gateway keeps: uploaded for one of its batches, or written by one (its output). */
export interface GatewayFile {
  workspaceId: string;
  id: string;
  purpose: string;
  filename: string;
  bytes: number;
  content: string;
  createdAt: string;
}

/** The counts of OpenAI's batch object. */
export interface BatchCounts {
  total: number;
  completed: number;
  failed: number;
}

/** One of the gateway's own batches: the provider's job behind it, its files and where it stands. */
export interface GatewayBatch {
  workspaceId: string;
  id: string;
  provider: string;
  virtualKeyId: string | null;
  apiKeyId: string | null;
  providerJobId: string;
  inputFileId: string;
  outputFileId: string | null;
  errorFileId: string | null;
  /** OpenAI's batch status. */
  status: string;
  endpoint: string;
  completionWindow: string;
  requestCounts: BatchCounts;
  metadata: Record<string, string> | null;
  errors: { code: string; message: string }[] | null;
  /** Where the provider reads and writes (a bucket and prefix), for providers that need storage. */
  storage: Record<string, string> | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

/** What changes as a batch is polled. */
export type BatchChange = Partial<Pick<GatewayBatch, "status" | "requestCounts" | "outputFileId" | "errorFileId" | "errors" | "finishedAt">>;

/** Every read is scoped to one workspace: another's files and batches are never seen. */
export interface BatchesRepository {
  putFile(file: GatewayFile): Promise<void>;
  getFile(workspaceId: string, id: string): Promise<GatewayFile | null>;
  /** Newest first, without their content. */
  listFiles(workspaceId: string, limit: number): Promise<Omit<GatewayFile, "content">[]>;
  /**
   * Deletes a file unless a batch that has not finished reads it (its results are translated
   * against it): `deleted`, `missing`, or the running batch's id.
   */
  deleteFile(workspaceId: string, id: string): Promise<{ deleted: true } | { deleted: false; runningBatchId: string | null }>;
  putBatch(batch: GatewayBatch): Promise<void>;
  getBatch(workspaceId: string, id: string): Promise<GatewayBatch | null>;
  /** Newest first; `after` is the id the page starts after. */
  listBatches(workspaceId: string, limit: number, after: string | null): Promise<GatewayBatch[]>;
  /** Changes a batch that has not finished; a finished one is left as it is. */
  updateBatch(workspaceId: string, id: string, change: BatchChange, updatedAt: string): Promise<void>;
  /**
   * Claims result lines for logging: the custom ids of `lines` no one claimed before, each now
   * claimed with its log id. Two replicas claiming the same line: one of them gets it.
   */
  claimLines(batchId: string, lines: readonly { customId: string; logId: string }[], at: string): Promise<Set<string>>;
}

/** The statuses a batch ends in. */
const FINISHED = ["completed", "failed", "expired", "cancelled"];

const FILE_COLUMNS = ["workspace_id", "id", "purpose", "filename", "bytes", "created_at"] as const;

export function createBatchesRepository(db: Kysely<Database>): BatchesRepository {
  return {
    async putFile(file) {
      await db
        .insertInto("gateway_files")
        .values({ workspace_id: file.workspaceId, id: file.id, purpose: file.purpose, filename: file.filename, bytes: file.bytes, content: file.content, created_at: file.createdAt })
        // A batch's output written twice (two replicas finishing it): the same text, the first stands.
        .onConflict((conflict) => conflict.columns(["workspace_id", "id"]).doNothing())
        .execute();
    },
    async getFile(workspaceId, id) {
      const row = await db.selectFrom("gateway_files").selectAll().where("workspace_id", "=", workspaceId).where("id", "=", id).executeTakeFirst();
      return row ? { ...fileOf(row), content: row.content } : null;
    },
    async listFiles(workspaceId, limit) {
      const rows = await db.selectFrom("gateway_files").select(FILE_COLUMNS).where("workspace_id", "=", workspaceId).orderBy("id", "desc").limit(limit).execute();
      return rows.map(fileOf);
    },
    async deleteFile(workspaceId, id) {
      const running = (input: string) =>
        db.selectFrom("gateway_batches").select("id").where("workspace_id", "=", workspaceId).where("input_file_id", "=", input).where("status", "not in", FINISHED);
      // One statement: a file is never deleted under a batch that reads it.
      const result = await db
        .deleteFrom("gateway_files")
        .where("workspace_id", "=", workspaceId)
        .where("id", "=", id)
        .where(({ not, exists }) => not(exists(running(id))))
        .executeTakeFirst();
      if (result.numDeletedRows > 0n) return { deleted: true };
      const batch = await running(id).executeTakeFirst();
      return { deleted: false, runningBatchId: batch?.id ?? null };
    },
    async putBatch(batch) {
      await db.insertInto("gateway_batches").values(rowOf(batch)).execute();
    },
    async getBatch(workspaceId, id) {
      const row = await db.selectFrom("gateway_batches").selectAll().where("workspace_id", "=", workspaceId).where("id", "=", id).executeTakeFirst();
      return row ? batchOf(row) : null;
    },
    async listBatches(workspaceId, limit, after) {
      let query = db.selectFrom("gateway_batches").selectAll().where("workspace_id", "=", workspaceId);
      if (after !== null) query = query.where("id", "<", after);
      const rows = await query.orderBy("id", "desc").limit(limit).execute();
      return rows.map(batchOf);
    },
    async updateBatch(workspaceId, id, change, updatedAt) {
      await db
        .updateTable("gateway_batches")
        .set({
          updated_at: updatedAt,
          ...(change.status !== undefined && { status: change.status }),
          ...(change.requestCounts !== undefined && { request_counts: JSON.stringify(change.requestCounts) }),
          ...(change.outputFileId !== undefined && { output_file_id: change.outputFileId }),
          ...(change.errorFileId !== undefined && { error_file_id: change.errorFileId }),
          ...(change.errors !== undefined && { errors: change.errors === null ? null : JSON.stringify(change.errors) }),
          ...(change.finishedAt !== undefined && { finished_at: change.finishedAt }),
        })
        .where("workspace_id", "=", workspaceId)
        .where("id", "=", id)
        // A finished batch stays as it finished: a replica's slower poll never moves it back.
        .where("status", "not in", FINISHED)
        .execute();
    },
    async claimLines(batchId, lines, at) {
      const claimed = new Set<string>();
      // In slices, so a large batch stays under the engines' bound on bound parameters.
      for (let start = 0; start < lines.length; start += 200) {
        const slice = lines.slice(start, start + 200);
        const rows = await db
          .insertInto("gateway_batch_lines")
          .values(slice.map((line) => ({ batch_id: batchId, custom_id: line.customId, log_id: line.logId, logged_at: at })))
          .onConflict((conflict) => conflict.columns(["batch_id", "custom_id"]).doNothing())
          .returning("custom_id")
          .execute();
        for (const row of rows) claimed.add(row.custom_id);
      }
      return claimed;
    },
  };
}

function fileOf(row: Pick<Database["gateway_files"], (typeof FILE_COLUMNS)[number]>): Omit<GatewayFile, "content"> {
  return { workspaceId: row.workspace_id, id: row.id, purpose: row.purpose, filename: row.filename, bytes: Number(row.bytes), createdAt: row.created_at };
}

function rowOf(batch: GatewayBatch): Database["gateway_batches"] {
  return {
    workspace_id: batch.workspaceId,
    id: batch.id,
    provider: batch.provider,
    virtual_key_id: batch.virtualKeyId,
    api_key_id: batch.apiKeyId,
    provider_job_id: batch.providerJobId,
    input_file_id: batch.inputFileId,
    output_file_id: batch.outputFileId,
    error_file_id: batch.errorFileId,
    status: batch.status,
    endpoint: batch.endpoint,
    completion_window: batch.completionWindow,
    request_counts: JSON.stringify(batch.requestCounts),
    metadata: batch.metadata === null ? null : JSON.stringify(batch.metadata),
    errors: batch.errors === null ? null : JSON.stringify(batch.errors),
    storage: batch.storage === null ? null : JSON.stringify(batch.storage),
    created_at: batch.createdAt,
    updated_at: batch.updatedAt,
    finished_at: batch.finishedAt,
  };
}

function batchOf(row: Database["gateway_batches"]): GatewayBatch {
  return {
    workspaceId: row.workspace_id,
    id: row.id,
    provider: row.provider,
    virtualKeyId: row.virtual_key_id,
    apiKeyId: row.api_key_id,
    providerJobId: row.provider_job_id,
    inputFileId: row.input_file_id,
    outputFileId: row.output_file_id,
    errorFileId: row.error_file_id,
    status: row.status,
    endpoint: row.endpoint,
    completionWindow: row.completion_window,
    requestCounts: JSON.parse(row.request_counts) as BatchCounts,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, string>),
    errors: row.errors === null ? null : (JSON.parse(row.errors) as { code: string; message: string }[]),
    storage: row.storage === null ? null : (JSON.parse(row.storage) as Record<string, string>),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
  };
}
