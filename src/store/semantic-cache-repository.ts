import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

/** One entry of the semantic cache as the store keeps it. Times in epoch milliseconds. */
export interface StoredSemanticEntry {
  /** The entry's exact cache key. */
  id: string;
  workspaceId: string;
  partition: string;
  scope: string;
  vector: Float32Array;
  /** The cached answer as JSON text (`CachedAnswer`). */
  answer: string;
  logId: string | null;
  createdAt: number;
  expiresAt: number;
}

/** The semantic cache's entries: written after a miss, read at start and when another replica announces one. */
export interface SemanticCacheRepository {
  /** Stores the entry, replacing one with the same id (a refresh of the same request). */
  put(entry: StoredSemanticEntry): Promise<void>;
  get(id: string): Promise<StoredSemanticEntry | null>;
  /** Unexpired entries, oldest first, a page at a time after `after` (the last entry of the previous page). */
  live(now: number, after: { createdAt: number; id: string } | null, limit: number): Promise<StoredSemanticEntry[]>;
  delete(ids: readonly string[]): Promise<void>;
  /** Deletes every entry expired at `now`; how many went. */
  deleteExpired(now: number): Promise<number>;
}

export function createSemanticCacheRepository(db: Kysely<Database>): SemanticCacheRepository {
  return {
    async put(entry) {
      const row = toRow(entry);
      await db
        .insertInto("semantic_cache_entries")
        .values(row)
        .onConflict((conflict) => conflict.column("id").doUpdateSet({ ...row }))
        .execute();
    },
    async get(id) {
      const row = await db.selectFrom("semantic_cache_entries").selectAll().where("id", "=", id).executeTakeFirst();
      return row ? fromRow(row) : null;
    },
    async live(now, after, limit) {
      let query = db.selectFrom("semantic_cache_entries").selectAll().where("expires_at", ">", now);
      if (after) {
        query = query.where((eb) => eb.or([eb("created_at", ">", after.createdAt), eb.and([eb("created_at", "=", after.createdAt), eb("id", ">", after.id)])]));
      }
      const rows = await query.orderBy("created_at").orderBy("id").limit(limit).execute();
      return rows.map(fromRow);
    },
    async delete(ids) {
      if (ids.length === 0) return;
      await db.deleteFrom("semantic_cache_entries").where("id", "in", [...ids]).execute();
    },
    async deleteExpired(now) {
      const result = await db.deleteFrom("semantic_cache_entries").where("expires_at", "<=", now).executeTakeFirst();
      return Number(result.numDeletedRows ?? 0);
    },
  };
}

type Row = Database["semantic_cache_entries"];

function toRow(entry: StoredSemanticEntry): Row {
  return {
    id: entry.id,
    workspace_id: entry.workspaceId,
    partition: entry.partition,
    scope: entry.scope,
    vector: Buffer.from(entry.vector.buffer, entry.vector.byteOffset, entry.vector.byteLength).toString("base64"),
    answer: entry.answer,
    log_id: entry.logId,
    created_at: entry.createdAt,
    expires_at: entry.expiresAt,
  };
}

function fromRow(row: Row): StoredSemanticEntry {
  const bytes = Buffer.from(row.vector, "base64");
  // Copied into an aligned buffer of its own: a Buffer may start at any offset of a shared pool.
  const vector = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(vector.buffer).set(bytes);
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    partition: row.partition,
    scope: row.scope,
    vector,
    answer: row.answer,
    logId: row.log_id,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}
