import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

/** A Responses answer the gateway keeps for a provider that keeps none. */
export interface StoredResponse {
  workspaceId: string;
  id: string;
  /** The response object as the client got it. */
  response: Record<string, unknown>;
  /** Input and output items, in order: what a follow-up's `previous_response_id` continues. */
  conversation: unknown[];
  createdAt: string;
}

/** Every read is scoped to one workspace: another's responses are never seen. */
export interface StoredResponsesRepository {
  put(stored: StoredResponse): Promise<void>;
  get(workspaceId: string, id: string): Promise<StoredResponse | null>;
  /** Whether there was one to delete. */
  delete(workspaceId: string, id: string): Promise<boolean>;
}

export function createStoredResponsesRepository(db: Kysely<Database>): StoredResponsesRepository {
  return {
    async put(stored) {
      await db
        .insertInto("stored_responses")
        .values({
          workspace_id: stored.workspaceId,
          id: stored.id,
          response: JSON.stringify(stored.response),
          conversation: JSON.stringify(stored.conversation),
          created_at: stored.createdAt,
        })
        // The same answer again (a replay): the first one stands.
        .onConflict((conflict) => conflict.columns(["workspace_id", "id"]).doNothing())
        .execute();
    },
    async get(workspaceId, id) {
      const row = await db.selectFrom("stored_responses").selectAll().where("workspace_id", "=", workspaceId).where("id", "=", id).executeTakeFirst();
      if (!row) return null;
      return {
        workspaceId: row.workspace_id,
        id: row.id,
        response: JSON.parse(row.response) as Record<string, unknown>,
        conversation: JSON.parse(row.conversation) as unknown[],
        createdAt: row.created_at,
      };
    },
    async delete(workspaceId, id) {
      const result = await db.deleteFrom("stored_responses").where("workspace_id", "=", workspaceId).where("id", "=", id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
