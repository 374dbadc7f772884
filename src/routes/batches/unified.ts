/**
 * What the batch and file routes share for the gateway's own batches (`batches/`): the target a
 * call names, who calls, the services the batches use, and answers in the error envelope.
 */
import type { Context } from "hono";
import type { GatewayEnv } from "../../app-env.ts";
import type { GatewayDeps } from "../../deps.ts";
import type { GatewayError, Result } from "../../errors.ts";
import type { Target } from "../../operation/target.ts";
import { batchTarget } from "../../batches/batch-target.ts";
import { requestTimeout } from "../../pipeline/request-config.ts";
import type { BatchCaller } from "../../batches/output-lines.ts";
import type { UnifiedBatchDeps } from "../../batches/unified-batches.ts";
import { targetHeaders } from "../proxy/proxy-route.ts";
import { validatedHeaders } from "../proxy/proxied-route.ts";

/** The target the request's headers, virtual key or config name. */
export function requestTarget(c: Context<GatewayEnv>, deps: GatewayDeps, route: string): Promise<Result<Target, GatewayError>> {
  const headers = targetHeaders(validatedHeaders(c), (name) => c.req.header(name));
  return batchTarget(headers, { workspaceId: c.get("auth").workspaceId, route, metadata: c.get("exchange").facts.metadata }, deps);
}

/** The target, when it names a provider whose own batch API the gateway drives; null otherwise. */
export async function batchProviderTarget(c: Context<GatewayEnv>, deps: GatewayDeps, route: string): Promise<Target | null> {
  const target = await requestTarget(c, deps, route);
  return target.ok && target.value.provider.batch ? target.value : null;
}

export function batchCaller(c: Context<GatewayEnv>, target: Target): BatchCaller {
  const auth = c.get("auth");
  return { organisationId: auth.organisationId, workspaceId: auth.workspaceId, apiKeyId: auth.keyId, virtualKeyId: target.virtualKeyId };
}

export function unifiedBatchDeps(c: Context<GatewayEnv>, deps: GatewayDeps): UnifiedBatchDeps {
  return {
    batches: deps.store.batches,
    fetch: deps.fetch,
    // Each call to the provider is held to the request's own timeout, as a chat call is.
    timeoutMs: requestTimeout(validatedHeaders(c)["x-gateway-request-timeout"], deps.config.GATEWAY_REQUEST_TIMEOUT_MS),
    maxAnswerBytes: deps.config.GATEWAY_MAX_RESPONSE_BUFFER_BYTES,
    maxResultsBytes: deps.config.GATEWAY_MAX_UPLOAD_BYTES,
    maxLoggedBodyBytes: deps.config.GATEWAY_MAX_LOGGED_BODY_BYTES,
    log: (entry) => deps.logWriter.enqueue(entry),
  };
}

/** A result's value; its error thrown for the app's error handler, which answers it in the envelope. */
export function valueOf<T>(result: Result<T, GatewayError>): T {
  if (!result.ok) throw result.error;
  return result.value;
}
