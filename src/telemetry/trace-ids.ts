import { createHash } from "node:crypto";

const HEX_TRACE = /^[0-9a-f]{32}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEX_SPAN = /^[0-9a-f]{16}$/;
const ZERO_TRACE = "0".repeat(32);

/**
 * The OpenTelemetry trace id (32 hex digits) of a log record's trace id: a `traceparent`'s as it
 * is, a UUID (a log id, when the request started its own trace) without its dashes, and any other
 * caller-chosen `x-gateway-trace-id` hashed, so every request naming it lands in one trace.
 */
export function otelTraceId(traceId: string): string {
  const lower = traceId.toLowerCase();
  if (HEX_TRACE.test(lower) && lower !== ZERO_TRACE) return lower;
  if (UUID.test(lower)) {
    const hex = lower.replaceAll("-", "");
    if (hex !== ZERO_TRACE) return hex;
  }
  return createHash("sha256").update(traceId).digest("hex").slice(0, 32);
}

/** A span id usable as an OpenTelemetry parent (16 hex digits, not all zero); null otherwise. */
export function otelSpanId(spanId: string | null): string | null {
  if (spanId === null) return null;
  const lower = spanId.toLowerCase();
  return HEX_SPAN.test(lower) && lower !== "0".repeat(16) ? lower : null;
}
