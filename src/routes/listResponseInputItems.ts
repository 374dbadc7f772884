import { listResponseInputItemsRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";
import type { Context } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { GatewayError } from "../errors.ts";

/**
 * The input items of a stored model response (`GET /responses/{id}/input_items`, its query passed on).
 * The request goes upstream as it arrives, to the same path and query. A response the gateway
 * kept (`families/responses/kept/`) is read and continued, not listed by items: 400.
 */
export const listResponseInputItemsOperation = proxiedOperation(listResponseInputItemsRoute, {
  answers: storedAnswers,
  onStoredResponse: true,
});

export const registerListResponseInputItems = proxiedRoute(listResponseInputItemsRoute, listResponseInputItemsOperation, { answerFirst: refuseKeptResponse });

/** A kept response is the gateway's alone (its id was made here): no upstream has it to ask. */
async function refuseKeptResponse(c: Context<GatewayEnv>, deps: GatewayDeps): Promise<Response | null> {
  const id = c.req.param("response_id") ?? "";
  if (!(await deps.store.storedResponses.get(c.get("auth").workspaceId, id))) return null;
  throw new GatewayError("invalid_request", `Response ${id} is kept by the gateway and has no input items to list: the gateway keeps a response to read it and continue it (previous_response_id).`, { param: "response_id" });
}
