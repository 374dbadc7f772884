import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

/**
 * Runs `work` in a transaction: a new one on a plain handle, or the caller's when `db` is
 * already a transaction (`Store.transaction`), so a repository's multi-statement write joins
 * the caller's transaction, with its audit event, instead of failing (Kysely has no nested
 * transactions).
 */
export function transactionally<T>(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}
