import { fail, GatewayError } from "../../../errors.ts";
import { callUpstream } from "../../../net/upstream-call.ts";
import { transformsKey, type OperationDescriptor, type UpstreamRoute } from "../../../operation/descriptor.ts";
import { readJsonAnswer } from "../../../pipeline/json-answer.ts";
import { requestTimeout, withOverrides } from "../../../pipeline/request-config.ts";
import type { Candidate } from "../../../pipeline/routing-loop.ts";
import { buildUpstreamRequest } from "../../../pipeline/upstream-request.ts";
import type { RoundCall } from "./tool-run.ts";
import type { ToolRunContext } from "./tool-run-context.ts";
import type { FetchLike } from "../../../net/upstream-call.ts";
import { isUnusableAnswer } from "../../../providers/provider.ts";

export interface RoundCallDeps {
  fetch: FetchLike;
  defaultTimeoutMs: number;
  maxResponseBufferBytes: number;
}

/**
 * One model round of a tool run on one target: the round's Responses body with the target's
 * overrides, built by its provider's transforms, sent (not streamed) under the request's timeout
 * and the run's cancellation, and its answer read and translated back to a Responses object.
 * An upstream error answer is handed back as its call, for the provider to word. Never throws.
 */
export function roundCall(
  candidate: Candidate,
  operation: OperationDescriptor,
  upstream: UpstreamRoute,
  request: { timeout?: number; forwardedHeaders?: Readonly<Record<string, string>> },
  run: ToolRunContext,
  deps: RoundCallDeps,
): RoundCall {
  const { target, settings } = candidate;
  const transforms = target.provider.operations[transformsKey(operation)];
  // A round is the gateway's own request, read whole as JSON: the client's `Accept` is for the run's answer, not the round's.
  const { accept: _clientAccept, ...forwarded } = request.forwardedHeaders ?? {};
  return async (body) => {
    const targetBody = withOverrides({ kind: "json", value: body }, settings.overrideParams, operation);
    if (!targetBody.ok) return { ok: false, failure: targetBody };
    const built = await buildUpstreamRequest(operation, upstream, target, targetBody.value, false, forwarded, { fetch: deps.fetch });
    if (!built.ok) return { ok: false, failure: built };
    const timeoutMs = requestTimeout(request.timeout, settings.requestTimeout ?? deps.defaultTimeoutMs);
    const call = await callUpstream(built.value, { timeoutMs, clientSignal: run.signal, fetch: deps.fetch, providerName: target.provider.name });
    if (!call.ok) return { ok: false, failure: call };
    const status = call.value.response.status;
    if (status < 200 || status >= 300) return { ok: false, failure: call };
    const read = await readJsonAnswer(call.value, {
      whole: true,
      maxBufferedBytes: deps.maxResponseBufferBytes,
      maxLoggedBytes: 0,
      providerName: target.provider.name,
      passedHeaders: {},
    });
    if (!read.ok) return { ok: false, failure: fail(read.error.error) };
    if (read.value.kind !== "whole") return { ok: false, failure: fail(new GatewayError("upstream_error", `${target.provider.name} answered a tool-run round with no JSON object.`)) };
    const response = transforms?.response ? transforms.response(read.value.value, { clientBody: body, model: target.model ?? "" }) : read.value.value;
    if (isUnusableAnswer(response)) return { ok: false, failure: fail(response.unusable) };
    return { ok: true, response, status };
  };
}
