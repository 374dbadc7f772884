import { createSpeechRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { streamEndsAt } from "../core/stream-end.ts";
import { jsonProxyInput, loggedRoute, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";
import type { JsonObject } from "../providers/provider.ts";

/**
 * Text to speech: the audio is relayed to the client as it arrives (`answer: "as-sent"`); the log
 * keeps its content type and size, and prices the input's characters (`speech` format).
 */
export const speechOperation: OperationDescriptor = {
  id: "createSpeech",
  method: "POST",
  upstreamPath: "/audio/speech",
  body: "json",
  answer: "as-sent",
  isStreamEnd: streamEndsAt("speech.audio.done"),
  format: "speech",
  guardrails: { input: inputText },
};

export function registerCreateSpeech(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(createSpeechRoute, deps),
    async (c) => proxyResponse(c, await proxyOperation(speechOperation, await jsonProxyInput(c, c.req.valid("json"), c.req.valid("header")), core)),
    logHeadersHook,
  );
}

/** The `input` text; without one there is nothing to judge. */
function inputText(body: JsonObject): string {
  return typeof body.input === "string" ? body.input : "";
}
