import { describe, expect, it } from "vitest";
import { parseTraceParent } from "./log-requests.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN = "00f067aa0ba902b7";

describe("parseTraceParent", () => {
  it("reads the trace and parent span of a version 00 header", () => {
    expect(parseTraceParent(`00-${TRACE}-${SPAN}-01`)).toEqual({ traceId: TRACE, parentSpanId: SPAN });
    expect(parseTraceParent(`00-${TRACE}-${SPAN}-00`)).toEqual({ traceId: TRACE, parentSpanId: SPAN });
  });

  it("accepts fields appended by a later version", () => {
    expect(parseTraceParent(`01-${TRACE}-${SPAN}-01-future`)).toEqual({ traceId: TRACE, parentSpanId: SPAN });
  });

  it.each([
    ["absent", undefined],
    ["empty", ""],
    ["uppercase hex", `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ["an all-zero trace id", `00-${"0".repeat(32)}-${SPAN}-01`],
    ["an all-zero parent id", `00-${TRACE}-${"0".repeat(16)}-01`],
    ["version ff", `ff-${TRACE}-${SPAN}-01`],
    ["version 00 with an extra field", `00-${TRACE}-${SPAN}-01-x`],
    ["a short trace id", `00-${TRACE.slice(1)}-${SPAN}-01`],
    ["garbage", "not a traceparent"],
  ])("ignores %s", (_, value) => {
    expect(parseTraceParent(value)).toBeNull();
  });
});
