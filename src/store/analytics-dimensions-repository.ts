import { sql, type Kysely } from "kysely";
import { partitionedById } from "./log-id-bound.ts";
import { lockBuiltUntilExclusive } from "./log-rollup-build.ts";
import { metadataDimensionOf, dayLevelOf, type DeclaredKeys } from "./log-rollup-rows.ts";
import type { Database } from "./schema.ts";

/** A metadata key declared as an analytics dimension. */
export interface DeclaredDimension {
  key: string;
  declaredAt: string;
  /** The first hour (ISO) from which every record of the workspace is summed for this key. */
  rollupsFrom: string;
}

/** At most this many declared keys a workspace (each costs a rollup row per value per hour). */
export const MAX_DECLARED_KEYS = 5;

const HOUR_MS = 3_600_000;
/**
 * On SQLite, how far ahead of the declaration the rollups start: a record stored later but
 * created before its hour (a batch in flight, a clock a little ahead) must not fall in it.
 */
const SQLITE_MARGIN_MS = 5 * 60_000;

/** The metadata keys workspaces declared as analytics dimensions, kept in the main store. */
export interface AnalyticsDimensionsRepository {
  /** The workspace's declared keys, by key. */
  list(workspaceId: string): Promise<DeclaredDimension[]>;
  /**
   * Makes `keys` (at most `MAX_DECLARED_KEYS`, checked by the caller) the workspace's declared
   * keys: a key kept keeps its `rollupsFrom`, a new one starts at the first hour whose records
   * are all summed with it, a key left out loses its rollup rows. Resolves to the new list.
   */
  replace(workspaceId: string, keys: readonly string[], nowMs?: number): Promise<DeclaredDimension[]>;
}

export function createAnalyticsDimensionsRepository(db: Kysely<Database>): AnalyticsDimensionsRepository {
  return {
    list: (workspaceId) => listDeclared(db, workspaceId),
    async replace(workspaceId, keys, nowMs = Date.now()) {
      // On PostgreSQL the caller's transaction holds the rollups' lock to its commit (below).
      const current = await listDeclared(db, workspaceId);
      const wanted = new Set(keys);
      const dropped = current.filter((dimension) => !wanted.has(dimension.key)).map((dimension) => dimension.key);
      const added = keys.filter((key) => !current.some((dimension) => dimension.key === key));
      if (dropped.length === 0 && added.length === 0) return current;
      const rollupsFrom = await firstSummedHour(db, workspaceId, nowMs);
      if (dropped.length > 0) {
        await db.deleteFrom("analytics_dimensions").where("workspace_id", "=", workspaceId).where("key", "in", dropped).execute();
        const dims = dropped.flatMap((key) => [metadataDimensionOf(key), dayLevelOf(metadataDimensionOf(key))]);
        await db.deleteFrom("log_rollups").where("workspace_id", "=", workspaceId).where("dim", "in", dims).execute();
      }
      const declaredAt = new Date(nowMs).toISOString();
      if (added.length > 0) {
        await db
          .insertInto("analytics_dimensions")
          .values(added.map((key) => ({ workspace_id: workspaceId, key, declared_at: declaredAt, rollups_from: rollupsFrom })))
          .execute();
      }
      return listDeclared(db, workspaceId);
    },
  };
}

async function listDeclared(db: Kysely<Database>, workspaceId: string): Promise<DeclaredDimension[]> {
  const rows = await db.selectFrom("analytics_dimensions").selectAll().where("workspace_id", "=", workspaceId).orderBy("key").execute();
  return rows.map((row) => ({ key: row.key, declaredAt: row.declared_at, rollupsFrom: row.rollups_from }));
}

/**
 * The first hour a key declared now has every record of in its rollups. PostgreSQL: `built_until`
 * under the exclusive lock (every hour from it on is built after this commit, and every later batch
 * reads the declaration). SQLite: each batch reads the declarations as it stores records, so the
 * hour after both now (with a margin) and the workspace's newest stored record.
 */
async function firstSummedHour(db: Kysely<Database>, workspaceId: string, nowMs: number): Promise<string> {
  if (partitionedById(db)) return lockBuiltUntilExclusive(db);
  const newest = await db
    .selectFrom("logs")
    .select(sql<string | null>`max(created_at)`.as("newest"))
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirst();
  const after = Math.max(nowMs + SQLITE_MARGIN_MS, newest?.newest ? Date.parse(newest.newest) + 1 : 0);
  return new Date(Math.floor(after / HOUR_MS) * HOUR_MS + HOUR_MS).toISOString();
}
