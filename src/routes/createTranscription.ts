import { createTranscriptionRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import { proxyOperation } from "../core/proxy-operation.ts";
import { streamEndsAt } from "../core/stream-end.ts";
import { forwardedProxyInput, loggedRoute, proxyDeps, proxyResponse } from "../core/proxy-route.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * Transcriptions: a multipart upload passed upstream as it arrives (the generated route does not read it);
 * the log keeps its content type, size and small form fields, never the file. No guardrails:
 * a config that attaches them is refused (400).
 * The answer is JSON or text (per `response_format`), relayed as it arrives.
 */
export const transcriptionOperation: OperationDescriptor = {
  id: "createTranscription",
  method: "POST",
  upstreamPath: "/audio/transcriptions",
  body: "as-sent",
  answer: "as-sent",
  isStreamEnd: streamEndsAt("transcript.text.done"),
  format: "transcription",
};

export function registerCreateTranscription(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(createTranscriptionRoute, deps),
    async (c) => proxyResponse(c, await proxyOperation(transcriptionOperation, forwardedProxyInput(c, c.req.valid("header")), core)),
    logHeadersHook,
  );
}
