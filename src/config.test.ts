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
