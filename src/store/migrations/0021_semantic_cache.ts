import type { Kysely } from "kysely";

/**
 * The semantic cache. Frozen: add a later migration for changes.
 *
 * `semantic_cache_entries`: one cached answer with the embedding of its request's last user
 * turn, so a restart keeps the cache and every replica loads what any one stored. `id` is the
 * entry's exact cache key (a refresh of the same request replaces its entry); `partition` names
 * its nearest-neighbour index (workspace, namespace, model, embedding target); `scope` is the
 * hash of everything else of the request, which must match exactly. `vector` is the embedding
 * as base64 little-endian float32; times are epoch milliseconds.
 *
 * `logs`: `cache_similarity` and `cache_source_log_id` of a hit, `cache_note` when the semantic
 * lookup could not run. `log_rollups`: exact and semantic hits and the cost they saved.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("semantic_cache_entries")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("workspace_id", "text", (col) => col.notNull())
    .addColumn("partition", "text", (col) => col.notNull())
    .addColumn("scope", "text", (col) => col.notNull())
    .addColumn("vector", "text", (col) => col.notNull())
    .addColumn("answer", "text", (col) => col.notNull())
    .addColumn("log_id", "text")
    .addColumn("created_at", "double precision", (col) => col.notNull())
    .addColumn("expires_at", "double precision", (col) => col.notNull())
    .execute();
  await db.schema.createIndex("semantic_cache_entries_workspace_idx").on("semantic_cache_entries").columns(["workspace_id", "created_at"]).execute();
  await db.schema.createIndex("semantic_cache_entries_expiry_idx").on("semantic_cache_entries").column("expires_at").execute();

  await db.schema.alterTable("logs").addColumn("cache_similarity", "double precision").execute();
  await db.schema.alterTable("logs").addColumn("cache_source_log_id", "text").execute();
  await db.schema.alterTable("logs").addColumn("cache_note", "text").execute();

  await db.schema.alterTable("log_rollups").addColumn("cache_hits", "double precision", (col) => col.notNull().defaultTo(0)).execute();
  await db.schema.alterTable("log_rollups").addColumn("semantic_cache_hits", "double precision", (col) => col.notNull().defaultTo(0)).execute();
  await db.schema.alterTable("log_rollups").addColumn("cost_saved_usd", "double precision", (col) => col.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ["cost_saved_usd", "semantic_cache_hits", "cache_hits"]) await db.schema.alterTable("log_rollups").dropColumn(column).execute();
  for (const column of ["cache_note", "cache_source_log_id", "cache_similarity"]) await db.schema.alterTable("logs").dropColumn(column).execute();
  await db.schema.dropTable("semantic_cache_entries").execute();
}
