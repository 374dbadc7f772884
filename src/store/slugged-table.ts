import type { Kysely, Selectable } from "kysely";
import type { Database } from "./schema.ts";

/** Control-plane tables whose rows are addressed by `(workspace_id, slug)`. */
type SluggedTableName = "guardrails" | "virtual_keys";
type Row<T extends SluggedTableName> = Selectable<Database[T]>;

/** The columns every slugged table has, which is all the shared queries touch. */
interface SluggedColumns {
  id: string;
  slug: string;
  workspace_id: string;
  created_at: string;
}

/**
 * The workspace-scoped CRUD queries of a slugged table, mapped to records by `fromRow`. The
 * queries are the same for every such table, so they are written once. Kysely cannot type a
 * query over a union of table names, so they run on a view of `db` with one table of the shared
 * columns (named as the real table at runtime), and rows are handed back as the table's own type.
 */
export function sluggedTable<T extends SluggedTableName, R>(db: Kysely<Database>, table: T, fromRow: (row: Row<T>) => R) {
  const view = db as unknown as Kysely<{ slugged: SluggedColumns }>;
  const name = table as unknown as "slugged";
  const toRecord = (row: SluggedColumns | undefined): R | undefined => (row ? fromRow(row as unknown as Row<T>) : undefined);
  return {
    async insert(row: Row<T>): Promise<R> {
      await view.insertInto(name).values(row as unknown as SluggedColumns).execute();
      return fromRow(row);
    },

    /** Newest first. */
    async list(workspaceId: string): Promise<R[]> {
      const rows = await view
        .selectFrom(name)
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .execute();
      return rows.map((row) => fromRow(row as unknown as Row<T>));
    },

    async getBySlug(workspaceId: string, slug: string): Promise<R | undefined> {
      return toRecord(
        await view.selectFrom(name).selectAll().where("workspace_id", "=", workspaceId).where("slug", "=", slug).executeTakeFirst(),
      );
    },

    async update(workspaceId: string, slug: string, columns: Partial<Row<T>>): Promise<R | undefined> {
      return toRecord(
        await view
          .updateTable(name)
          .set(columns as Partial<SluggedColumns>)
          .where("workspace_id", "=", workspaceId)
          .where("slug", "=", slug)
          .returningAll()
          .executeTakeFirst(),
      );
    },

    async delete(workspaceId: string, slug: string): Promise<boolean> {
      const result = await view.deleteFrom(name).where("workspace_id", "=", workspaceId).where("slug", "=", slug).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
