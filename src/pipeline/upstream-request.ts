import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { AuthorizeContext, UpstreamRequest } from "../providers/provider.ts";
import { transformsKey, type OperationDescriptor, type UpstreamRoute } from "../operation/descriptor.ts";
import type { RequestBody } from "../operation/request-body.ts";
import type { Target } from "../operation/target.ts";
import type { RequestDescription } from "../logging/outcome.ts";
import { chunkCollector, UPLOAD_COLLECTION_BYTES } from "../lib/chunk-collector.ts";
import { multipartBoundary, MultipartSniffer, type MultipartSummary } from "../lib/multipart-fields.ts";

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

/**
 * What the log keeps of a body passed upstream as it arrives (an upload, a binary body): never
 * its bytes, only this, as JSON text. `size_bytes` is the declared `content-length`, or for a
 * chunked body the bytes counted, null until the whole body was sent.
 */
export interface UploadMetadata {
  content_type: string | null;
  size_bytes: number | null;
  /** A multipart upload's text fields (cut to 4 KB each) and files' names and types. */
  fields?: MultipartSummary["fields"];
  files?: MultipartSummary["files"];
}

/**
 * The body as it goes upstream, and `described()`: the log's description of it, the upload's
 * metadata. A sized body that is not multipart is returned untouched, so the runtime pipes it
 * natively; a chunked one is counted as it passes, and a multipart one has its part headers and
 * small fields read as they pass (its description final when the stream ends, which is before
 * the answer, since an upstream answers only after the body was sent), its chunks collected as
 * they go (`chunk-collector.ts`). A multipart `model` or `user` field names the log's when nothing
 * else did. Other bodies are returned as they are, with no description.
 */
export function meteredUpload(body: RequestBody): { body: RequestBody; described(): RequestDescription | null } {
  if (body.kind !== "as-sent" || body.stream === null) return { body, described: () => null };
  const { contentType, length } = body;
  const boundary = multipartBoundary(contentType);
  const sniffer = boundary === null ? null : new MultipartSniffer(boundary);
  let size: number | null = null;
  const described = (): RequestDescription => {
    const sizeBytes = length ?? size;
    const metadata: UploadMetadata = { content_type: contentType, size_bytes: sizeBytes };
    const summary = sniffer?.summary();
    if (summary) {
      metadata.fields = summary.fields;
      metadata.files = summary.files;
    }
    return { body: JSON.stringify(metadata), bodyBytes: sizeBytes, model: summary?.fields.model ?? null, user: summary?.fields.user ?? null, params: null };
  };
  if (sniffer === null && length !== null) return { body, described };
  let counted = 0;
  const passed = chunkCollector(UPLOAD_COLLECTION_BYTES);
  const reader = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      counted += chunk.byteLength;
      passed(chunk.byteLength);
      sniffer?.push(chunk);
      controller.enqueue(chunk);
    },
    flush() {
      size = counted;
    },
  });
  return { body: { ...body, stream: body.stream.pipeThrough(reader) }, described };
}
