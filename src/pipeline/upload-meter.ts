import type { RequestDescription } from "../logging/outcome.ts";
import { multipartBoundary, MultipartSniffer, type MultipartSummary } from "../lib/multipart-fields.ts";
import type { RequestBody } from "../operation/request-body.ts";
import { chunkCollector, UPLOAD_COLLECTION_BYTES } from "../lib/chunk-collector.ts";

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
 * they go (`chunk-collector.ts`). A multipart `model` or
 * `user` field names the log's when nothing else did. Other bodies are returned as they are,
 * with no description.
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
