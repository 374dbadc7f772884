import type { Kysely } from "kysely";
import { PRODUCTION_LABEL, type PromptRecord } from "../records/control-plane.ts";
import type { PromptsRepository } from "./control-plane-repositories.ts";
import { fromPromptRows, toVersionRow, type PromptLabelRow, type PromptRow, type PromptVersionRow } from "./prompt-rows.ts";
import { transactionally } from "./transactionally.ts";
import type { Database } from "./schema.ts";
import { ownershipColumns } from "./ownership-columns.ts";

/**
 * The repository over `prompts`, `prompt_versions` and `prompt_labels`. Writes that add a
 * version or move a label first update the prompt row, so on PostgreSQL its row lock serialises
 * them before the next version number is read (SQLite's `begin immediate` does the same). The
 * `production` label and `prompts.default_version` are written together.
 */
export function createPromptsRepository(db: Kysely<Database>): PromptsRepository {
  return {
    create(prompt) {
      const row: PromptRow = {
        id: prompt.id,
        ...ownershipColumns(prompt),
        name: prompt.name,
        default_version: 1,
        created_at: prompt.createdAt,
        updated_at: prompt.createdAt,
      };
      const version = toVersionRow(prompt.version, { prompt: row, versionNumber: 1, createdBy: prompt.ownerId, at: prompt.createdAt });
      return transactionally(db, async (trx) => {
        await trx.insertInto("prompts").values(row).execute();
        await trx.insertInto("prompt_versions").values(version).execute();
        await setLabel(trx, row, PRODUCTION_LABEL, 1, prompt.ownerId, prompt.createdAt);
        return fromPromptRows(row, [version], [{ prompt_id: row.id, label: PRODUCTION_LABEL, version_number: 1 }]);
      });
    },

    async list(workspaceId) {
      const rows = await db
        .selectFrom("prompts")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .execute();
      if (rows.length === 0) return [];
      const versions = await db
        .selectFrom("prompt_versions")
        .selectAll()
        .where("prompt_id", "in", (eb) => eb.selectFrom("prompts").select("prompts.id").where("prompts.workspace_id", "=", workspaceId))
        .orderBy("version_number", "desc")
        .execute();
      const labels = await db.selectFrom("prompt_labels").select(["prompt_id", "label", "version_number"]).where("workspace_id", "=", workspaceId).execute();
      const versionsOfPrompt = groupBy(versions);
      const labelsOfPrompt = groupBy(labels);
      return rows.map((row) => fromPromptRows(row, versionsOfPrompt.get(row.id) ?? [], labelsOfPrompt.get(row.id) ?? []));
    },

    async get(workspaceId, id) {
      const row = await db
        .selectFrom("prompts")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .where("id", "=", id)
        .executeTakeFirst();
      return row && recordOf(db, row);
    },

    addVersion(workspaceId, id, change) {
      return transactionally(db, async (trx) => {
        const row = await trx
          .updateTable("prompts")
          .set({ updated_at: change.at, updated_by: change.updatedBy, ...(change.name !== undefined && { name: change.name }) })
          .where("workspace_id", "=", workspaceId)
          .where("id", "=", id)
          .returningAll()
          .executeTakeFirst();
        if (!row) return undefined;
        const newest = await trx
          .selectFrom("prompt_versions")
          .select((eb) => eb.fn.max("version_number").as("max"))
          .where("prompt_id", "=", id)
          .executeTakeFirst();
        const versionNumber = Number(newest?.max ?? 0) + 1;
        const version = toVersionRow(change.version, { prompt: row, versionNumber, createdBy: change.updatedBy, at: change.at });
        await trx.insertInto("prompt_versions").values(version).execute();
        if (change.publish) await moveLabel(trx, row, PRODUCTION_LABEL, versionNumber, change.updatedBy, change.at);
        return recordOf(trx, { ...row, default_version: change.publish ? versionNumber : row.default_version });
      });
    },

    publish(workspaceId, id, versionNumber, updatedBy, at) {
      return this.moveLabel(workspaceId, id, PRODUCTION_LABEL, versionNumber, updatedBy, at);
    },

    moveLabel(workspaceId, id, label, versionNumber, updatedBy, at) {
      return transactionally(db, async (trx): Promise<PromptRecord | undefined> => {
        const row = await trx
          .updateTable("prompts")
          .set({ updated_at: at, updated_by: updatedBy })
          .where("workspace_id", "=", workspaceId)
          .where("id", "=", id)
          .where((eb) =>
            eb.exists(
              eb
                .selectFrom("prompt_versions")
                .select("prompt_versions.version_id")
                .where("prompt_versions.prompt_id", "=", id)
                .where("prompt_versions.version_number", "=", versionNumber),
            ),
          )
          .returningAll()
          .executeTakeFirst();
        if (!row) return undefined;
        await moveLabel(trx, row, label, versionNumber, updatedBy, at);
        return recordOf(trx, label === PRODUCTION_LABEL ? { ...row, default_version: versionNumber } : row);
      });
    },

    removeLabel(workspaceId, id, label, updatedBy, at) {
      return transactionally(db, async (trx): Promise<PromptRecord | undefined> => {
        const removed = await trx
          .deleteFrom("prompt_labels")
          .where("workspace_id", "=", workspaceId)
          .where("prompt_id", "=", id)
          .where("label", "=", label)
          .executeTakeFirst();
        if (Number(removed.numDeletedRows) === 0) return undefined;
        const row = await trx
          .updateTable("prompts")
          .set({ updated_at: at, updated_by: updatedBy })
          .where("workspace_id", "=", workspaceId)
          .where("id", "=", id)
          .returningAll()
          .executeTakeFirst();
        return row && recordOf(trx, row);
      });
    },

    delete(workspaceId, id) {
      return transactionally(db, async (trx) => {
        const row = await trx
          .selectFrom("prompts")
          .select("id")
          .where("workspace_id", "=", workspaceId)
          .where("id", "=", id)
          .executeTakeFirst();
        if (!row) return false;
        await trx.deleteFrom("prompt_labels").where("prompt_id", "=", id).execute();
        await trx.deleteFrom("prompt_versions").where("prompt_id", "=", id).execute();
        await trx.deleteFrom("prompts").where("id", "=", id).execute();
        return true;
      });
    },
  };
}

/** Rows grouped by their prompt, in the order given. */
function groupBy<R extends { prompt_id: string }>(rows: readonly R[]): Map<string, R[]> {
  const groups = new Map<string, R[]>();
  for (const row of rows) {
    const group = groups.get(row.prompt_id);
    if (group) group.push(row);
    else groups.set(row.prompt_id, [row]);
  }
  return groups;
}

/** Points `label` at a version (inserted or moved); `production` moves `default_version` with it. */
async function moveLabel(trx: Kysely<Database>, row: PromptRow, label: string, versionNumber: number, updatedBy: string | null, at: string): Promise<void> {
  await setLabel(trx, row, label, versionNumber, updatedBy, at);
  if (label === PRODUCTION_LABEL) await trx.updateTable("prompts").set({ default_version: versionNumber }).where("id", "=", row.id).execute();
}

function setLabel(trx: Kysely<Database>, row: PromptRow, label: string, versionNumber: number, updatedBy: string | null, at: string) {
  return trx
    .insertInto("prompt_labels")
    .values({ prompt_id: row.id, label, version_number: versionNumber, workspace_id: row.workspace_id, updated_by: updatedBy, updated_at: at })
    .onConflict((conflict) => conflict.columns(["prompt_id", "label"]).doUpdateSet({ version_number: versionNumber, updated_by: updatedBy, updated_at: at }))
    .execute();
}

/** The record of a prompt row, with its versions (newest first) and labels. Pass `trx` inside a transaction. */
async function recordOf(db: Kysely<Database>, row: PromptRow): Promise<PromptRecord> {
  const versions: PromptVersionRow[] = await db.selectFrom("prompt_versions").selectAll().where("prompt_id", "=", row.id).orderBy("version_number", "desc").execute();
  const labels: PromptLabelRow[] = await db.selectFrom("prompt_labels").select(["prompt_id", "label", "version_number"]).where("prompt_id", "=", row.id).execute();
  return fromPromptRows(row, versions, labels);
}
