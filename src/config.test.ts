import { describe, expect, it } from "vitest";
import { loadConfig, MAX_REQUEST_TIMEOUT_MS } from "./config.ts";

const MS_VARIABLES = [
  "GATEWAY_REQUEST_TIMEOUT_MS",
  "GATEWAY_CONTROL_PLANE_CACHE_TTL_MS",
  "GATEWAY_LOG_FLUSH_INTERVAL_MS",
  "GATEWAY_SHUTDOWN_TIMEOUT_MS",
  "GATEWAY_KEY_CACHE_TTL_MS",
] as const;

describe("loadConfig", () => {
  it("reads decimal digits as numbers and keeps the defaults", () => {
    const config = loadConfig({ GATEWAY_REQUEST_TIMEOUT_MS: "1500", PORT: "0" });
    expect(config.GATEWAY_REQUEST_TIMEOUT_MS).toBe(1500);
    expect(config.PORT).toBe(0);
    expect(loadConfig({}).GATEWAY_REQUEST_TIMEOUT_MS).toBe(600_000);
    expect(loadConfig({}).GATEWAY_MAX_LOGGED_BODY_BYTES).toBe(1024 * 1024);
    expect(loadConfig({}).GATEWAY_MAX_RESPONSE_BUFFER_BYTES).toBe(32 * 1024 * 1024);
  });

  it("sets the client timeouts explicitly, Bun's idle timeout within the 255 s it accepts", () => {
    const config = loadConfig({});
    expect(config.GATEWAY_HEADERS_TIMEOUT_MS).toBe(10_000);
    expect(config.GATEWAY_BODY_TIMEOUT_MS).toBe(300_000);
    expect(config.GATEWAY_IDLE_TIMEOUT_S).toBe(75);
    expect(config.GATEWAY_STREAM_STALL_TIMEOUT_MS).toBe(60_000);
    expect(loadConfig({ GATEWAY_IDLE_TIMEOUT_S: "255" }).GATEWAY_IDLE_TIMEOUT_S).toBe(255);
    expect(() => loadConfig({ GATEWAY_IDLE_TIMEOUT_S: "256" })).toThrow("GATEWAY_IDLE_TIMEOUT_S");
    expect(() => loadConfig({ GATEWAY_IDLE_TIMEOUT_S: "0" })).toThrow("GATEWAY_IDLE_TIMEOUT_S");
    // Under a second a slow but honest client could not send its headers or body at all.
    expect(() => loadConfig({ GATEWAY_HEADERS_TIMEOUT_MS: "999" })).toThrow("GATEWAY_HEADERS_TIMEOUT_MS");
    expect(() => loadConfig({ GATEWAY_BODY_TIMEOUT_MS: "999" })).toThrow("GATEWAY_BODY_TIMEOUT_MS");
  });

  it("keeps logs forever unless GATEWAY_LOG_RETENTION_DAYS is a whole number of days", () => {
    expect(loadConfig({}).GATEWAY_LOG_RETENTION_DAYS).toBeUndefined();
    expect(loadConfig({ GATEWAY_LOG_RETENTION_DAYS: "30" }).GATEWAY_LOG_RETENTION_DAYS).toBe(30);
    for (const value of ["0", "-1", "1.5", "30d", "36501"]) {
      expect(() => loadConfig({ GATEWAY_LOG_RETENTION_DAYS: value })).toThrow("GATEWAY_LOG_RETENTION_DAYS");
    }
  });

  it("accepts the request timeout up to its documented maximum", () => {
    expect(loadConfig({ GATEWAY_REQUEST_TIMEOUT_MS: String(MAX_REQUEST_TIMEOUT_MS) }).GATEWAY_REQUEST_TIMEOUT_MS).toBe(3_600_000);
  });

  for (const name of MS_VARIABLES) {
    it.each(["0x10", " 100 ", "1e3", "+5000", "-1", "1.5", "0"])(`refuses ${name}=%j, naming the variable`, (value) => {
      expect(() => loadConfig({ [name]: value })).toThrow(name);
    });

    it(`refuses ${name} at 2^31 ms, which a timer would fire at once`, () => {
      expect(() => loadConfig({ [name]: "2147483648" })).toThrow(/must be at most/);
    });
  }

  it("refuses a request timeout above one hour", () => {
    expect(() => loadConfig({ GATEWAY_REQUEST_TIMEOUT_MS: "3600001" })).toThrow("GATEWAY_REQUEST_TIMEOUT_MS: must be at most 3600000");
  });
});

describe("telemetry settings", () => {
  it("leaves tracing and metrics off by default", () => {
    const config = loadConfig({});
    expect(config.OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    expect(config.OTEL_EXPORTER_OTLP_HEADERS).toEqual({});
    expect(config.OTEL_SERVICE_NAME).toBe("ai-gateway");
    expect(config.GATEWAY_METRICS).toBe("off");
    expect(config.GATEWAY_METRICS_TOKEN).toBeUndefined();
  });

  it("reads OTLP headers as the OpenTelemetry format writes them, values percent-decoded", () => {
    const config = loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: "api-key=abc%3D%3D, x-tenant = blue ,", OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" });
    expect(config.OTEL_EXPORTER_OTLP_HEADERS).toEqual({ "api-key": "abc==", "x-tenant": "blue" });
    expect(config.OTEL_EXPORTER_OTLP_ENDPOINT).toBe("http://collector:4318");
  });

  it.each([
    ["OTEL_EXPORTER_OTLP_HEADERS", "no-equals-sign"],
    ["OTEL_EXPORTER_OTLP_HEADERS", "k=%E0%A4%A"],
    ["OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318"],
    ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "grpc://collector:4317"],
    ["GATEWAY_METRICS", "yes"],
    ["GATEWAY_METRICS_TOKEN", "short"],
  ])("refuses %s=%j, naming the variable", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});
