import type { Kysely, Selectable } from "kysely";
import type { ConfigRecord, ConfigVersionRecord } from "../records/control-plane.ts";
import type { ConfigsRepository } from "./control-plane-repositories.ts";
import type { ConfigsTable, ConfigVersionsTable, Database } from "./schema.ts";
import { transactionally } from "./transactionally.ts";
import { ownershipColumns, ownershipOf } from "./ownership-columns.ts";

type ConfigRow = Selectable<ConfigsTable>;
type VersionRow = Selectable<ConfigVersionsTable>;

/**
 * The repository over `configs` and `config_versions`. `configs.name` always mirrors the
 * newest version's name. An update first touches the config row, so on PostgreSQL the row
 * lock serialises concurrent updates of one config before the next version number is read.
 */
export function createConfigsRepository(db: Kysely<Database>): ConfigsRepository {
  return {
    create(config) {
      const configRow: ConfigRow = {
        id: config.id,
        ...ownershipColumns(config),
        slug: config.slug,
        name: config.name,
        is_default: config.isDefault ? 1 : 0,
        status: "active",
        created_at: config.createdAt,
        last_updated_at: config.createdAt,
      };
      const versionRow: VersionRow = {
        version_id: config.versionId,
        config_id: config.id,
        organisation_id: config.organisationId,
        workspace_id: config.workspaceId,
        owner_id: config.ownerId,
        updated_by: config.ownerId,
        version_number: 1,
        name: config.name,
        config: config.config,
        created_at: config.createdAt,
      };
      return transactionally(db, async (trx) => {
        if (config.isDefault) await clearDefault(trx, config.workspaceId, config.id);
        await trx.insertInto("configs").values(configRow).execute();
        await trx.insertInto("config_versions").values(versionRow).execute();
        return fromRows(configRow, versionRow);
      });
    },

    async list(workspaceId) {
      const rows = await db
        .selectFrom("configs")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .execute();
      if (rows.length === 0) return [];
      const latest = await db
        .selectFrom("config_versions as v")
        .selectAll("v")
        .where("v.config_id", "in", (eb) => eb.selectFrom("configs").select("configs.id").where("configs.workspace_id", "=", workspaceId))
        .where((eb) =>
          eb(
            "v.version_number",
            "=",
            eb.selectFrom("config_versions as m").select((m) => m.fn.max("m.version_number").as("n")).whereRef("m.config_id", "=", "v.config_id"),
          ),
        )
        .execute();
      const byConfig = new Map(latest.map((version) => [version.config_id, version]));
      return rows.flatMap((row) => {
        const version = byConfig.get(row.id);
        return version ? [fromRows(row, version)] : [];
      });
    },

    async getBySlug(workspaceId, slug) {
      const row = await db
        .selectFrom("configs")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .where("slug", "=", slug)
        .executeTakeFirst();
      if (!row) return undefined;
      const version = await latestVersion(db, row.id);
      return version && fromRows(row, version);
    },

    update(workspaceId, slug, change) {
      return transactionally(db, async (trx) => {
        let set: Partial<ConfigRow> = { last_updated_at: change.at, updated_by: change.updatedBy };
        if (change.name !== undefined) set = { ...set, name: change.name };
        if (change.isDefault !== undefined) set = { ...set, is_default: change.isDefault ? 1 : 0 };
        const row = await trx
          .updateTable("configs")
          .set(set)
          .where("workspace_id", "=", workspaceId)
          .where("slug", "=", slug)
          .returningAll()
          .executeTakeFirst();
        if (!row) return undefined;
        if (change.isDefault === true) await clearDefault(trx, workspaceId, row.id);
        const latest = await latestVersion(trx, row.id);
        if (!latest) throw new Error(`config ${row.id} has no version`);
        const versionRow: VersionRow = {
          version_id: change.versionId,
          config_id: row.id,
          organisation_id: row.organisation_id,
          workspace_id: row.workspace_id,
          owner_id: row.owner_id,
          updated_by: change.updatedBy,
          version_number: latest.version_number + 1,
          name: change.name ?? latest.name,
          config: change.config ?? latest.config,
          created_at: change.at,
        };
        await trx.insertInto("config_versions").values(versionRow).execute();
        return fromRows({ ...row, name: versionRow.name }, versionRow);
      });
    },

    async listVersions(workspaceId, slug) {
      const rows = await db
        .selectFrom("config_versions as v")
        .innerJoin("configs as c", "c.id", "v.config_id")
        .selectAll("v")
        .where("c.workspace_id", "=", workspaceId)
        .where("c.slug", "=", slug)
        .orderBy("v.version_number", "desc")
        .execute();
      return rows.length === 0 ? undefined : rows.map(versionFromRow);
    },

    delete(workspaceId, slug) {
      return transactionally(db, async (trx) => {
        const row = await trx
          .selectFrom("configs")
          .select("id")
          .where("workspace_id", "=", workspaceId)
          .where("slug", "=", slug)
          .executeTakeFirst();
        if (!row) return false;
        await trx.deleteFrom("config_versions").where("config_id", "=", row.id).execute();
        await trx.deleteFrom("configs").where("id", "=", row.id).execute();
        return true;
      });
    },
  };
}

/** Clears `is_default` on the workspace's configs other than `keepId`. */
async function clearDefault(db: Kysely<Database>, workspaceId: string, keepId: string): Promise<void> {
  await db
    .updateTable("configs")
    .set({ is_default: 0 })
    .where("workspace_id", "=", workspaceId)
    .where("id", "!=", keepId)
    .where("is_default", "=", 1)
    .execute();
}

function latestVersion(db: Kysely<Database>, configId: string): Promise<VersionRow | undefined> {
  return db
    .selectFrom("config_versions")
    .selectAll()
    .where("config_id", "=", configId)
    .orderBy("version_number", "desc")
    .limit(1)
    .executeTakeFirst();
}

function fromRows(row: ConfigRow, version: VersionRow): ConfigRecord {
  return {
    id: row.id,
    ...ownershipOf(row),
    slug: row.slug,
    name: row.name,
    isDefault: row.is_default === 1,
    status: "active",
    createdAt: row.created_at,
    lastUpdatedAt: version.created_at,
    latest: versionFromRow(version),
  };
}

function versionFromRow(row: VersionRow): ConfigVersionRecord {
  return {
    versionId: row.version_id,
    configId: row.config_id,
    versionNumber: row.version_number,
    name: row.name,
    config: row.config,
    createdAt: row.created_at,
    updatedBy: row.updated_by,
  };
}
