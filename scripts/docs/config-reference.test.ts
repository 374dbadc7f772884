import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadConfig, settingDocs } from "../../src/config.ts";
import { renderConfigReference } from "./config-reference.ts";

describe("the configuration reference", () => {
  it("has one row per variable of the schema, with its default and limits", () => {
    const reference = renderConfigReference();
    const names = settingDocs().map((setting) => setting.name);
    // Every variable the parsed config holds is documented, unset optional ones included.
    expect(names).toEqual(expect.arrayContaining(Object.keys(loadConfig({}))));
    expect(names).toEqual(expect.arrayContaining(["GATEWAY_ADMIN_KEY", "GATEWAY_REDIS_URL", "OTEL_EXPORTER_OTLP_ENDPOINT", "UPSTREAM_MTLS_CA_PATH"]));
    for (const name of names) expect(reference).toContain(`| \`${name}\` |`);
    expect(reference.split("\n").filter((line) => line.startsWith("| `")).length).toBe(names.length);
    expect(reference).toContain("| `GATEWAY_MAX_BODY_BYTES` | `33554432` (32 MiB) | 1 to 1073741824 |");
    expect(reference).toContain("| `GATEWAY_REQUEST_TIMEOUT_MS` | `600000` (600 s) | 1 to 3600000 |");
    expect(reference).toContain("| `GATEWAY_LOG_RETENTION_DAYS` | — | 1 to 36500 |");
    expect(reference).toContain("| `GATEWAY_REDIS_FAILURE_POLICY` | `open` | `open`, `closed` |");
  });

  it("is what docs/configuration.md holds (npm run codegen writes it)", () => {
    expect(readFileSync("docs/configuration.md", "utf8")).toBe(renderConfigReference());
  });
});
