import { deleteResponseRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";
import type { Context } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";

/**
 * Deletes a stored model response at the upstream (`DELETE /responses/{id}`).
 * The request goes upstream as it arrives, to the same path and query. A response the gateway
 * kept (`families/responses/kept/`) is deleted from the store.
 */
export const deleteResponseOperation = proxiedOperation(deleteResponseRoute, {
  answers: storedAnswers,
  onStoredResponse: true,
});

export const registerDeleteResponse = proxiedRoute(deleteResponseRoute, deleteResponseOperation, { answerFirst: deleteKeptResponse });

/** A kept response is the gateway's alone (its id was made here): deleted here, no upstream asked. */
async function deleteKeptResponse(c: Context<GatewayEnv>, deps: GatewayDeps): Promise<Response | null> {
  const id = c.req.param("response_id") ?? "";
  const deleted = await deps.store.storedResponses.delete(c.get("auth").workspaceId, id);
  return deleted ? c.json({ id, object: "response", deleted: true }, 200) : null;
}
