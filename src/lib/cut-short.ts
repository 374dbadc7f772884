/**
 * Errors a response body so the server drops the connection: the client sees the download cut
 * short, never ended as if whole. The caller has reported the failure, so the body errors with
 * a value the server does not print again: Bun prints any value but `undefined` with a code
 * frame; @hono/node-server (Node) prints a stack for any error but a gone client's (one line).
 */
export function cutShort(controller: ReadableStreamDefaultController<Uint8Array>): void {
  controller.error(process.versions.bun ? undefined : Object.assign(new Error("The download was cut short."), { code: "ERR_STREAM_PREMATURE_CLOSE" }));
}
