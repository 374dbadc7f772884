import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Static imports (`import … from "x"`, `export … from "x"`), type-only ones left out: they vanish at run time. */
function staticImports(text: string): string[] {
  return [...text.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?\sfrom\s+"([^"]+)"/gms)].map((match) => match[1]!);
}

describe("the ClickHouse log store is loaded only when configured", () => {
  const files = sourceFiles(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, "utf8") }));

  it("no module outside clickhouse/ imports it, or the client, statically", () => {
    const offenders = files
      .filter(({ path }) => !path.startsWith("clickhouse"))
      .flatMap(({ path, text }) => staticImports(text).filter((target) => target.includes("/clickhouse/") || target.startsWith("@clickhouse/")).map((target) => `${path} → ${target}`));
    expect(offenders).toEqual([]);
  });

  it("inside it, the client is imported dynamically, once", () => {
    const inside = files.filter(({ path }) => path.startsWith("clickhouse"));
    expect(inside.flatMap(({ path, text }) => staticImports(text).filter((target) => target.startsWith("@clickhouse/")).map((target) => `${path} → ${target}`))).toEqual([]);
    const dynamic = inside.filter(({ text }) => text.includes('await import("@clickhouse/client")')).map(({ path }) => path);
    expect(dynamic).toEqual([join("clickhouse", "clickhouse-connection.ts")]);
  });

  it("the gateway opens it by a dynamic import when GATEWAY_LOG_STORE_URL is set", () => {
    const gateway = files.find(({ path }) => path === "gateway.ts")!.text;
    expect(gateway).toContain('await import("./clickhouse/open-clickhouse-log-store.ts")');
  });
});
