/**
 * The W3C Trace Context `traceparent` header (https://www.w3.org/TR/trace-context/#traceparent-header):
 * `version-traceid-parentid-flags`, lowercase hex. A header that does not parse is ignored, as the
 * spec asks of a receiver, never refused.
 */
export interface TraceParent {
  /** 32 lowercase hex digits, not all zero. */
  traceId: string;
  /** The caller's span: 16 lowercase hex digits, not all zero. */
  parentSpanId: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-.*)?$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

/** The trace and parent span of a `traceparent` value; null when it is absent or invalid. Never throws. */
export function parseTraceParent(value: string | undefined): TraceParent | null {
  if (!value) return null;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return null;
  const [, version, traceId, parentSpanId, rest] = match as unknown as [string, string, string, string, string | undefined];
  // Version ff is forbidden; version 00 has exactly four fields, later versions may append more.
  if (version === "ff" || (version === "00" && rest !== undefined)) return null;
  if (traceId === ZERO_TRACE || parentSpanId === ZERO_SPAN) return null;
  return { traceId, parentSpanId };
}
