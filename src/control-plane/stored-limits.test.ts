import { describe, expect, it } from "vitest";
import type { GatewayConfig } from "../generated/schemas.gen.ts";
import { parseGatewayConfig } from "../pipeline/config-body.ts";
import { MAX_CONDITION_PATTERNS, MAX_CONDITION_TERMS, MAX_CONFIG_TARGETS, MAX_GUARDRAILS_PER_LIST, MAX_HOST_CHARS, upstreamFieldsProblem } from "./stored-limits.ts";

/** The param of the 400 a config gets, or null when it parses. */
function refusedAt(config: unknown): string | null {
  const parsed = parseGatewayConfig(config);
  return parsed.ok ? null : String(parsed.error.param);
}

const leaf = (name: string): GatewayConfig => ({ name, provider: "openai" }) as GatewayConfig;

describe("config limits", () => {
  it("counts targets at every level", () => {
    const group = (index: number, size: number) => ({ name: `g${index}`, strategy: { mode: "fallback" }, targets: Array.from({ length: size }, (_, i) => leaf(`t${i}`)) });
    expect(refusedAt({ strategy: { mode: "fallback" }, targets: [group(0, 49), group(1, 49)] })).toBeNull();
    expect(refusedAt({ strategy: { mode: "fallback" }, targets: [group(0, 49), group(1, 49), group(2, 1)] })).toMatch(/^config(\.targets\.\d+)?\.targets$/);
    expect(MAX_CONFIG_TARGETS).toBe(100);
  });

  it("bounds condition terms and $regex patterns across the config", () => {
    const conditional = (queries: Record<string, unknown>[]) => ({
      strategy: { mode: "conditional", conditions: queries.map((query) => ({ query, then: "a" })), default: "a" },
      targets: [leaf("a")],
    });
    const many = (count: number, make: (i: number) => Record<string, unknown>) => ({ $or: Array.from({ length: count }, (_, i) => make(i)) });
    expect(refusedAt(conditional([many(100, (i) => ({ [`metadata.k${i}`]: { $regex: "^a" } }))]))).toBeNull();
    expect(refusedAt(conditional([many(100, (i) => ({ [`metadata.k${i}`]: { $regex: "^a" } })), { "metadata.x": { $regex: "b" } }]))).toBe("config.strategy.conditions.1.query");
    const terms = Array.from({ length: 11 }, () => many(100, (i) => ({ [`metadata.k${i}`]: "v" })));
    expect(refusedAt(conditional(terms))).toMatch(/^config\.strategy\.conditions\.\d+\.query$/);
    // Compared values are not terms: an $in list of 100 objects costs one term.
    expect(refusedAt(conditional([{ "params.user": { $in: Array.from({ length: 100 }, (_, i) => ({ [`k${i}`]: i })) } }]))).toBeNull();
    expect(MAX_CONDITION_TERMS).toBeGreaterThan(MAX_CONDITION_PATTERNS);
  });

  it("refuses long guardrail lists, long hosts and header values that fetch cannot send", () => {
    expect(refusedAt({ input_guardrails: Array.from({ length: MAX_GUARDRAILS_PER_LIST + 1 }, (_, i) => `g${i}`) })).toBe("config.input_guardrails");
    expect(refusedAt({ targets: [{ provider: "openai", custom_host: `http://127.0.0.1/${"a".repeat(MAX_HOST_CHARS)}` }] })).toBe("config.targets.0.custom_host");
    expect(refusedAt({ provider: "openai", api_key: "sk-line\r\nX-Injected: 1" })).toBe("config.api_key");
    expect(refusedAt({ provider: "openai", api_key: "sk-ключ" })).toBe("config.api_key");
    expect(refusedAt({ targets: [{ strategy: { mode: "single" }, targets: [{ provider: "openai", upstream_project: "p\n" }] }] })).toBe("config.targets.0.targets.0.upstream_project");
    expect(refusedAt({ provider: "openai", api_key: "********", upstream_organization: "Org Name 1" })).toBeNull();
    // Vertex AI's key is a service-account document its provider exchanges, never a header value.
    const document = '{\n  "type": "service_account",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\n…"\n}';
    expect(refusedAt({ provider: "vertex", api_key: document })).toBeNull();
    expect(refusedAt({ provider: "vertex", targets: [{ api_key: document }, { provider: "openai", api_key: document }] })).toBe("config.targets.1.api_key");
  });

  it("names a virtual key's own fields", () => {
    expect(upstreamFieldsProblem({ api_key: "sk key" }, "", "key")?.param).toBe("key");
    expect(upstreamFieldsProblem({ upstream_organization: "o".repeat(257) }, "")?.param).toBe("upstream_organization");
    expect(upstreamFieldsProblem({ api_key: "sk-fine-0001", upstream_organization: null, custom_host: null }, "", "key")).toBeNull();
  });
});
