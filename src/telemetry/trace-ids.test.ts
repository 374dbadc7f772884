import { describe, expect, it } from "vitest";
import { otlpTracesUrl } from "./otlp-tracing.ts";
import { otelSpanId, otelTraceId } from "./trace-ids.ts";

describe("trace ids for OpenTelemetry", () => {
  it("keeps a hex trace id, takes a log id without dashes, and hashes any other id steadily", () => {
    expect(otelTraceId("4BF92F3577B34DA6A3CE929D0E0E4736")).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
    expect(otelTraceId("0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")).toBe("0190a1b2c3d47e5f8a9b0c1d2e3f4a5b");
    const hashed = otelTraceId("checkout-flow-42");
    expect(hashed).toMatch(/^[0-9a-f]{32}$/);
    expect(otelTraceId("checkout-flow-42")).toBe(hashed);
    expect(otelTraceId("0".repeat(32))).not.toBe("0".repeat(32));
  });

  it("uses a parent span id only when it is 16 hex digits, not all zero", () => {
    expect(otelSpanId("00F067AA0BA902B7")).toBe("00f067aa0ba902b7");
    expect(otelSpanId("0".repeat(16))).toBeNull();
    expect(otelSpanId("span-7")).toBeNull();
    expect(otelSpanId(null)).toBeNull();
  });
});

describe("otlpTracesUrl", () => {
  it("appends /v1/traces to the base endpoint, takes the traces endpoint as it is, and is null when neither is set", () => {
    expect(otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" })).toBe("http://collector:4318/v1/traces");
    expect(otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://b/otlp/traces" })).toBe("http://b/otlp/traces");
    expect(otlpTracesUrl({})).toBeNull();
  });
});
