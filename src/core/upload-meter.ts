import type { RequestLog } from "../logging/request-log.ts";
import { multipartBoundary, MultipartSniffer, type MultipartSummary } from "./multipart-fields.ts";
import type { RequestBody } from "./upstream-request.ts";

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
 * The body as it goes upstream, and the log's request body set to the upload's metadata.
 * A sized body that is not multipart is returned untouched, so the runtime pipes it natively;
 * a chunked one is counted as it passes, and a multipart one has its part headers and small
 * fields read as they pass (its size final when the stream ends: before the log is finished,
 * since an upstream answers only after the body was sent). A multipart `model` or `user` field
 * fills the log's when nothing else named one. Other bodies are returned as they are.
 */
export function meteredUpload(body: RequestBody, log: RequestLog): RequestBody {
  if (body.kind !== "as-sent" || body.stream === null) return body;
  const { contentType, length } = body;
  const boundary = multipartBoundary(contentType);
  const sniffer = boundary === null ? null : new MultipartSniffer(boundary);
  const describe = (sizeBytes: number | null): void => {
    const metadata: UploadMetadata = { content_type: contentType, size_bytes: sizeBytes };
    if (sniffer) {
      const { fields, files } = sniffer.summary();
      metadata.fields = fields;
      metadata.files = files;
      if (log.model === null && fields.model) log.model = fields.model;
      if (log.user === null && fields.user) log.user = fields.user;
    }
    log.requestBody = JSON.stringify(metadata);
    log.requestBodyBytes = sizeBytes;
  };
  describe(length);
  if (sniffer === null && length !== null) return body;
  let size = 0;
  const reader = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      size += chunk.byteLength;
      sniffer?.push(chunk);
      controller.enqueue(chunk);
    },
    flush() {
      describe(length ?? size);
    },
  });
  return { ...body, stream: body.stream.pipeThrough(reader) };
}
