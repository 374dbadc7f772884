import type { Kysely } from "kysely";
import type { DeclaredKeys } from "./log-rollup-rows.ts";
import type { Database } from "./schema.ts";

/** Every workspace's declared keys, for the writer and the build. */
export async function readDeclaredKeys(db: Kysely<Database>): Promise<DeclaredKeys> {
  const rows = await db.selectFrom("analytics_dimensions").select(["workspace_id", "key"]).orderBy("workspace_id").orderBy("key").execute();
  const keys = new Map<string, string[]>();
  for (const row of rows) {
    const list = keys.get(row.workspace_id);
    if (list) list.push(row.key);
    else keys.set(row.workspace_id, [row.key]);
  }
  return keys;
}
