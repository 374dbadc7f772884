import { getResponseRoute } from "../generated/routes.gen.ts";
import { storedAnswers } from "../families/responses/index.ts";
import type { Context } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";

/**
 * A stored model response, read from the upstream (`GET /responses/{id}`). The request goes
 * upstream as it arrives, to the same path and query; with `?stream=true` the upstream replays
 * the response's events, relayed as they arrive and ending where the bytes end. A response the
 * gateway kept itself (`families/responses/kept/`) is answered from the store.
 */
export const getResponseOperation = proxiedOperation(getResponseRoute, {
  answer: "as-sent",
  streamEndsAtEof: true,
  answers: storedAnswers,
  onStoredResponse: true,
});

export const registerGetResponse = proxiedRoute(getResponseRoute, getResponseOperation, { answerFirst: keptResponse });

/** A response the gateway kept for a provider that keeps none is answered here (logged as `stored`, served by no provider). */
async function keptResponse(c: Context<GatewayEnv>, deps: GatewayDeps): Promise<Response | null> {
  const kept = await deps.store.storedResponses.get(c.get("auth").workspaceId, c.req.param("response_id") ?? "");
  return kept ? c.json(kept.response, 200) : null;
}
