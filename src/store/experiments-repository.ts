import type { Kysely, Selectable } from "kysely";
import type { ExperimentRecord, ExperimentStatus } from "../records/experiment.ts";
import { ownershipColumns, ownershipOf } from "./ownership-columns.ts";
import type { Database, ExperimentsTable } from "./schema.ts";

export type NewExperiment = Omit<ExperimentRecord, "updatedAt">;

/** Fields absent are kept. */
export type ExperimentChange = Partial<
  Pick<
    ExperimentRecord,
    "name" | "description" | "status" | "assignment" | "promptId" | "variants" | "guards" | "alpha" | "startedAt" | "stoppedAt" | "concludedAt" | "stopReason" | "promotedVariant"
  >
> & { updatedBy: string | null; at: string };

/** Experiments of a workspace. Every read but `running` is scoped to one workspace. */
export interface ExperimentsRepository {
  create(experiment: NewExperiment): Promise<ExperimentRecord>;
  get(workspaceId: string, id: string): Promise<ExperimentRecord | undefined>;
  /** Newest first; only those in `status` when given. */
  list(workspaceId: string, status?: ExperimentStatus): Promise<ExperimentRecord[]>;
  /** Every running experiment of every workspace: what the guards watch. */
  running(): Promise<ExperimentRecord[]>;
  /**
   * Applies `change`, only while the experiment is in one of `whileIn` when given (a status
   * change made once, whichever replica or admin makes it first); undefined when it is missing
   * or no longer in those.
   */
  update(workspaceId: string, id: string, change: ExperimentChange, whileIn?: readonly ExperimentStatus[]): Promise<ExperimentRecord | undefined>;
  delete(workspaceId: string, id: string): Promise<boolean>;
}

type ExperimentRow = Selectable<ExperimentsTable>;

export function createExperimentsRepository(db: Kysely<Database>): ExperimentsRepository {
  return {
    async create(experiment) {
      const row = toRow({ ...experiment, updatedAt: experiment.createdAt });
      await db.insertInto("experiments").values(row).execute();
      return fromRow(row);
    },
    async get(workspaceId, id) {
      const row = await db.selectFrom("experiments").selectAll().where("workspace_id", "=", workspaceId).where("id", "=", id).executeTakeFirst();
      return row && fromRow(row);
    },
    async list(workspaceId, status) {
      const rows = await db
        .selectFrom("experiments")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .$if(status !== undefined, (query) => query.where("status", "=", status!))
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .execute();
      return rows.map(fromRow);
    },
    async running() {
      const rows = await db.selectFrom("experiments").selectAll().where("status", "=", "running").orderBy("id").execute();
      return rows.map(fromRow);
    },
    async update(workspaceId, id, change, whileIn) {
      const set: Partial<ExperimentRow> = { updated_at: change.at, updated_by: change.updatedBy };
      if (change.name !== undefined) set.name = change.name;
      if (change.description !== undefined) set.description = change.description;
      if (change.status !== undefined) set.status = change.status;
      if (change.assignment !== undefined) set.assignment = change.assignment;
      if (change.promptId !== undefined) set.prompt_id = change.promptId;
      if (change.variants !== undefined) set.variants = JSON.stringify(change.variants);
      if (change.guards !== undefined) set.guards = JSON.stringify(change.guards);
      if (change.alpha !== undefined) set.alpha = change.alpha;
      if (change.startedAt !== undefined) set.started_at = change.startedAt;
      if (change.stoppedAt !== undefined) set.stopped_at = change.stoppedAt;
      if (change.concludedAt !== undefined) set.concluded_at = change.concludedAt;
      if (change.stopReason !== undefined) set.stop_reason = change.stopReason === null ? null : JSON.stringify(change.stopReason);
      if (change.promotedVariant !== undefined) set.promoted_variant = change.promotedVariant;
      const row = await db
        .updateTable("experiments")
        .set(set)
        .where("workspace_id", "=", workspaceId)
        .where("id", "=", id)
        .$if(whileIn !== undefined, (query) => query.where("status", "in", [...whileIn!]))
        .returningAll()
        .executeTakeFirst();
      return row && fromRow(row);
    },
    async delete(workspaceId, id) {
      const deleted = await db.deleteFrom("experiments").where("workspace_id", "=", workspaceId).where("id", "=", id).executeTakeFirst();
      return Number(deleted.numDeletedRows) > 0;
    },
  };
}

function toRow(experiment: ExperimentRecord): ExperimentRow {
  return {
    id: experiment.id,
    ...ownershipColumns(experiment),
    name: experiment.name,
    description: experiment.description,
    status: experiment.status,
    assignment: experiment.assignment,
    prompt_id: experiment.promptId,
    variants: JSON.stringify(experiment.variants),
    guards: JSON.stringify(experiment.guards),
    alpha: experiment.alpha,
    started_at: experiment.startedAt,
    stopped_at: experiment.stoppedAt,
    concluded_at: experiment.concludedAt,
    stop_reason: experiment.stopReason === null ? null : JSON.stringify(experiment.stopReason),
    promoted_variant: experiment.promotedVariant,
    created_at: experiment.createdAt,
    updated_at: experiment.updatedAt,
  };
}

function fromRow(row: ExperimentRow): ExperimentRecord {
  return {
    id: row.id,
    ...ownershipOf(row),
    name: row.name,
    description: row.description,
    status: row.status as ExperimentRecord["status"],
    assignment: row.assignment as ExperimentRecord["assignment"],
    promptId: row.prompt_id,
    variants: JSON.parse(row.variants) as ExperimentRecord["variants"],
    guards: JSON.parse(row.guards) as ExperimentRecord["guards"],
    alpha: Number(row.alpha),
    startedAt: row.started_at,
    stoppedAt: row.stopped_at,
    concludedAt: row.concluded_at,
    stopReason: row.stop_reason === null ? null : (JSON.parse(row.stop_reason) as ExperimentRecord["stopReason"]),
    promotedVariant: row.promoted_variant,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
