import type { Kysely } from "kysely";
import type { PromptRecord } from "../records/control-plane.ts";
import type { PromptsRepository } from "./control-plane-repositories.ts";
import { fromPromptRows, toVersionRow, type PromptRow, type PromptVersionRow } from "./prompt-rows.ts";
import { transactionally } from "./transactionally.ts";
import type { Database } from "./schema.ts";
import { ownershipColumns } from "./ownership-columns.ts";

/**
 * The repository over `prompts` and `prompt_versions`. Writes that add or publish a version
 * first update the prompt row, so on PostgreSQL its row lock serialises them before the
 * next version number is read (SQLite's `begin immediate` does the same).
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
        return fromPromptRows(row, [version]);
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
      const byPrompt = new Map<string, PromptVersionRow[]>();
      for (const version of versions) {
        const group = byPrompt.get(version.prompt_id);
        if (group) group.push(version);
        else byPrompt.set(version.prompt_id, [version]);
      }
      return rows.map((row) => fromPromptRows(row, byPrompt.get(row.id) ?? []));
    },

    async get(workspaceId, id) {
      const row = await db
        .selectFrom("prompts")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .where("id", "=", id)
        .executeTakeFirst();
      return row && fromPromptRows(row, await versionsOf(db, row.id));
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
        let published: PromptRow = row;
        if (change.publish) {
          await trx.updateTable("prompts").set({ default_version: versionNumber }).where("id", "=", id).execute();
          published = { ...row, default_version: versionNumber };
        }
        return fromPromptRows(published, await versionsOf(trx, id));
      });
    },

    publish(workspaceId, id, versionNumber, updatedBy, at) {
      return transactionally(db, async (trx): Promise<PromptRecord | undefined> => {
        const row = await trx
          .updateTable("prompts")
          .set({ default_version: versionNumber, updated_at: at, updated_by: updatedBy })
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
        return row && fromPromptRows(row, await versionsOf(trx, id));
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
        await trx.deleteFrom("prompt_versions").where("prompt_id", "=", id).execute();
        await trx.deleteFrom("prompts").where("id", "=", id).execute();
        return true;
      });
    },
  };
}

/** A prompt's versions, newest first. Pass `trx` inside a transaction. */
function versionsOf(db: Kysely<Database>, promptId: string): Promise<PromptVersionRow[]> {
  return db
    .selectFrom("prompt_versions")
    .selectAll()
    .where("prompt_id", "=", promptId)
    .orderBy("version_number", "desc")
    .execute();
}
