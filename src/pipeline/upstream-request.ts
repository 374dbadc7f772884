import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { AuthorizeContext, UpstreamRequest } from "../providers/provider.ts";
import { transformsKey, type OperationDescriptor } from "../operation/descriptor.ts";
import type { RequestBody } from "../operation/request-body.ts";
import type { Target } from "../operation/target.ts";
import type { UpstreamRoute } from "../operation/upstream-path.ts";

/**
 * The request for one target: the provider's transform of the operation (when it has one) on
 * the body, the model as the target names it, the provider's path, then its authorisation. A
 * JSON body nothing changed goes as the client's exact bytes. A provider outside the OpenAI
 * format that has no transform for the operation cannot serve it, nor can an OpenAI-format one
 * an operation only native providers serve (`nativeOnly`): 400.
 */
export async function buildUpstreamRequest(
  operation: OperationDescriptor,
  /** Where this request goes: method and path (`resolveUpstream`). */
  upstream: UpstreamRoute,
  target: Target,
  body: RequestBody,
  stream: boolean,
  /** The client's headers that go upstream (`header-rules.ts`); the provider's credentials are set over them. */
  forwarded: Readonly<Record<string, string>> = {},
  /** Lent to the provider's `authorize` (the gateway's pinned fetch). */
  context?: AuthorizeContext,
): Promise<Result<UpstreamRequest, GatewayError>> {
  const { provider } = target;
  const transforms = provider.operations[transformsKey(operation)];
  if (!transforms && (!provider.openaiFormat || operation.nativeOnly === true)) {
    if (operation.onStoredResponse && !provider.openaiFormat) {
      return fail(new GatewayError("not_found", `No response with this id: ${provider.name} keeps no responses, and the gateway keeps none under it.`, { param: "response_id" }));
    }
    return fail(new GatewayError("invalid_request", `${provider.name} does not serve ${operation.id} through the gateway.`, { param: "x-gateway-provider" }));
  }
  let path = upstream.path;
  const headers: Record<string, string> = { ...forwarded };
  let sent: UpstreamRequest["body"] = null;
  if (body.kind === "json") {
    // A model the client may leave to the upstream (a stored prompt's) is one a translating provider must be told.
    if (transforms?.request && !target.model) {
      return fail(new GatewayError("invalid_request", `${provider.name} needs a model for ${operation.id}: send model, or a config or virtual key that names one.`, { param: "model" }));
    }
    const named = target.model !== null && body.value.model !== target.model ? { ...body.value, model: target.model } : body.value;
    const transformed = transforms?.request?.(named, { model: target.model ?? "", stream }) ?? { body: named };
    if ("error" in transformed) return fail(transformed.error);
    path = transformed.path ?? path;
    sent = transformed.body === body.value && body.raw !== undefined ? body.raw : JSON.stringify(transformed.body);
    headers["content-type"] = "application/json";
    // An OpenAI-format upstream gets the client's `Accept` (a transform there only adds a field);
    // a translated request is in the provider's own wire format, so it asks for what the
    // provider's transforms read, and so does a client that named no type.
    if (!provider.openaiFormat || headers.accept === undefined) headers.accept = stream ? "text/event-stream" : "application/json";
  } else if (body.kind === "as-sent") {
    sent = body.stream;
    if (body.contentType) headers["content-type"] = body.contentType;
    if (body.length !== null && body.stream !== null) headers["content-length"] = String(body.length);
  }
  if (provider.upstreamPath) {
    const routed = provider.upstreamPath(path, { model: target.model, fields: target.credentials.fields });
    if (routed instanceof GatewayError) return fail(routed);
    path = routed;
  }
  const request: UpstreamRequest = { method: upstream.method, url: `${target.baseUrl.replace(/\/+$/, "")}${path}`, headers, body: sent };
  const authorized = await provider.authorize(request, target.credentials, context);
  return authorized instanceof GatewayError ? fail(authorized) : ok(authorized);
}
