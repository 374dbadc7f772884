import type { JsonObject } from "../providers/provider.ts";

/** The request's body as the core holds it. */
export type RequestBody =
  /** `raw` is the client's exact text of `value`, when `value` is the client's own body. */
  | { kind: "json"; value: JsonObject; raw?: string }
  | {
      kind: "as-sent";
      stream: ReadableStream<Uint8Array> | null;
      contentType: string | null;
      /** The client's declared `content-length`, sent on so the upstream gets a sized body, not a chunked one. */
      length: number | null;
    }
  | { kind: "none" };
