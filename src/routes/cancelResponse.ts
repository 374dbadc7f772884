import { cancelResponseRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";
import type { Context } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { GatewayError } from "../errors.ts";

/**
 * Cancels a background model response at the upstream (`POST /responses/{id}/cancel`, no body).
 * The request goes upstream as it arrives, to the same path and query. A response the gateway
 * kept (`families/responses/kept/`) is a finished one, never a background one: nothing to cancel, 400.
 */
export const cancelResponseOperation = proxiedOperation(cancelResponseRoute, {
  answers: storedAnswers,
  onStoredResponse: true,
});

export const registerCancelResponse = proxiedRoute(cancelResponseRoute, cancelResponseOperation, { answerFirst: refuseKeptResponse });

/** A kept response is the gateway's alone (its id was made here): no upstream has it to ask. */
async function refuseKeptResponse(c: Context<GatewayEnv>, deps: GatewayDeps): Promise<Response | null> {
  const id = c.req.param("response_id") ?? "";
  if (!(await deps.store.storedResponses.get(c.get("auth").workspaceId, id))) return null;
  throw new GatewayError("invalid_request", `Response ${id} is kept by the gateway and cannot be cancelled: only a background response can, and the gateway keeps finished ones.`, { param: "response_id" });
}
