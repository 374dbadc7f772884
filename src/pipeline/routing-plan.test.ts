import { describe, expect, it } from "vitest";
import type { GatewayConfig } from "../generated/schemas.gen.ts";
import { parseGatewayConfig } from "./config-body.ts";
import { buildRoutePlan, planLeaves, type PlannedLeaf } from "./routing-plan.ts";
import type { RouteFacts } from "./route-conditions.ts";

const facts = (extra: Partial<RouteFacts> = {}): RouteFacts => ({ metadata: {}, params: {}, route: "createChatCompletion", ...extra });

function leaves(config: GatewayConfig, given = facts(), random = () => 0): PlannedLeaf[] {
  const plan = buildRoutePlan(config, undefined, "config");
  if (!plan.ok) throw plan.error;
  const planned = planLeaves(plan.value, given, random);
  if (!planned.ok) throw planned.error;
  return planned.value;
}

const error = (config: unknown): { message: string; param: string | null } | null => {
  const parsed = parseGatewayConfig(config);
  return parsed.ok ? null : { message: parsed.error.message, param: parsed.error.param };
};

describe("routing plans", () => {
  it("a config without targets is one leaf with the root's settings and no fallback", () => {
    const [leaf, ...rest] = leaves({ provider: "openai", api_key: "sk-1", request_timeout: 5000 });
    expect(rest).toHaveLength(0);
    expect(leaf).toMatchObject({ path: "", settings: { provider: "openai", apiKey: "sk-1", requestTimeout: 5000 }, fallback: { unreachable: false } });
  });

  it("fallback lists every target in order; each inherits the root and moves on by the strategy's statuses, the last by none", () => {
    const planned = leaves({
      provider: "openai",
      api_key: "sk-root",
      override_params: { temperature: 0 },
      strategy: { mode: "fallback", on_status_codes: [503] },
      targets: [{ override_params: { model: "a" } }, { provider: "groq", api_key: "gsk", retry: { attempts: 2 } }],
    });
    expect(planned.map((leaf) => leaf.path)).toEqual(["0", "1"]);
    expect(planned[0]!.settings).toMatchObject({ provider: "openai", apiKey: "sk-root", overrideParams: { temperature: 0, model: "a" } });
    expect([...planned[0]!.fallback.statuses]).toEqual([503]);
    expect(planned[0]!.fallback.unreachable).toBe(true);
    expect(planned[1]!.settings).toMatchObject({ provider: "groq", apiKey: "gsk" });
    expect(planned[1]!.retry.attempts).toBe(2);
    expect(planned[1]!.fallback.statuses.size).toBe(0);
  });

  it("without on_status_codes a fallback moves on for 429 and every 5xx", () => {
    const [first] = leaves({ strategy: { mode: "fallback" }, targets: [{ provider: "openai" }, { provider: "groq" }] });
    expect([429, 500, 503, 599].every((status) => first!.fallback.statuses.has(status))).toBe(true);
    expect(first!.fallback.statuses.has(404)).toBe(false);
  });

  it("loadbalance picks one target by weight, never one weighted 0", () => {
    const config: GatewayConfig = { strategy: { mode: "loadbalance" }, targets: [{ provider: "openai", weight: 1 }, { provider: "groq", weight: 0 }, { provider: "mistral", weight: 3 }] };
    expect(leaves(config, facts(), () => 0)[0]!.settings.provider).toBe("openai");
    expect(leaves(config, facts(), () => 0.24)[0]!.settings.provider).toBe("openai");
    expect(leaves(config, facts(), () => 0.26)[0]!.settings.provider).toBe("mistral");
    expect(leaves(config, facts(), () => 0.999)[0]!.settings.provider).toBe("mistral");
    const counts = { openai: 0, mistral: 0 } as Record<string, number>;
    for (let i = 0; i < 4000; i += 1) counts[leaves(config, facts(), Math.random)[0]!.settings.provider!]! += 1;
    expect(counts.mistral! / 4000).toBeGreaterThan(0.7);
    expect(counts.mistral! / 4000).toBeLessThan(0.8);
  });

  it("conditional routes by metadata, body fields and route, else the default; without one it is a 400", () => {
    const config: GatewayConfig = {
      strategy: {
        mode: "conditional",
        conditions: [
          { query: { "metadata.plan": "paid", "params.max_tokens": { $gte: 1000 } }, then: "big" },
          { query: { $or: [{ "params.model": { $regex: "^mini-" } }, { route: { $in: ["createEmbedding"] } }] }, then: "small" },
        ],
        default: "small",
      },
      targets: [
        { name: "big", provider: "openai" },
        { name: "small", provider: "groq" },
      ],
    };
    expect(leaves(config, facts({ metadata: { plan: "paid" }, params: { max_tokens: 2000 } }))[0]!.path).toBe("0");
    expect(leaves(config, facts({ metadata: { plan: "paid" }, params: { max_tokens: 10 } }))[0]!.path).toBe("1");
    expect(leaves(config, facts({ metadata: { plan: "free" }, params: { max_tokens: "2000" } }))[0]!.path).toBe("1");
    const noDefault = buildRoutePlan({ ...config, strategy: { ...config.strategy!, default: undefined } }, undefined, "config");
    expect(noDefault.ok).toBe(true);
    const unmatched = noDefault.ok ? planLeaves(noDefault.value, facts({ params: { model: "gpt" } })) : null;
    expect(unmatched && !unmatched.ok && unmatched.error.status).toBe(400);
    expect(leaves({ ...config, strategy: { ...config.strategy!, default: undefined } }, facts({ params: { model: "mini-1" } }))[0]!.path).toBe("1");
  });

  it("nested targets: a fallback over a load-balanced group, which inherits its parent and never its parent's key when it names its own host", () => {
    const planned = leaves(
      {
        provider: "openai",
        api_key: "sk-root",
        strategy: { mode: "fallback" },
        targets: [
          { strategy: { mode: "loadbalance" }, targets: [{ weight: 1, override_params: { model: "a" } }, { weight: 1, custom_host: "https://elsewhere.example/v1" }] },
          { virtual_key: "backup" },
        ],
      },
      facts(),
      () => 0.9,
    );
    expect(planned.map((leaf) => leaf.path)).toEqual(["0.1", "1"]);
    // A nested target with its own host does not carry the key set above it.
    expect(planned[0]!.settings.apiKey).toBeUndefined();
    expect(planned[0]!.settings.customHost).toBe("https://elsewhere.example/v1");
    expect(planned[0]!.fallback.unreachable).toBe(true);
    // A target naming its own virtual key does not take the root's key either.
    expect(planned[1]!.settings).toMatchObject({ virtualKey: "backup", provider: "openai" });
    expect(planned[1]!.settings.apiKey).toBeUndefined();
  });

  it("refuses at parse time what would fail a request: unknown names, bad queries and patterns, all-zero weights, a strategy without targets", () => {
    const targets = [{ name: "a", provider: "openai" }];
    expect(error({ strategy: { mode: "conditional", conditions: [{ query: {}, then: "b" }] }, targets })).toMatchObject({ param: "config.strategy.conditions.0.then" });
    expect(error({ strategy: { mode: "conditional", conditions: [{ query: { "metadata.x": { $near: 1 } }, then: "a" }] }, targets })).toMatchObject({ param: "config.strategy.conditions.0.query.metadata.x.$near" });
    expect(error({ strategy: { mode: "conditional", conditions: [{ query: { "params.x": { $regex: "(a)\\1" } }, then: "a" }] }, targets })?.message).toMatch(/RE2/);
    expect(error({ strategy: { mode: "conditional", conditions: [{ query: { body: 1 }, then: "a" }] }, targets })).toMatchObject({ param: "config.strategy.conditions.0.query.body" });
    expect(error({ strategy: { mode: "conditional", conditions: [{ query: {}, then: "a" }], default: "zzz" }, targets })).toMatchObject({ param: "config.strategy.default" });
    expect(error({ strategy: { mode: "loadbalance" }, targets: [{ provider: "openai", weight: 0 }] })).toMatchObject({ param: "config.targets" });
    expect(error({ strategy: { mode: "fallback" } })).toMatchObject({ param: "config.strategy" });
    expect(error({ targets: [{ name: "a" }, { name: "a" }] })).toMatchObject({ param: "config.targets.1.name" });
    expect(error({ targets: [{ targets: [{ api_key: "sk-nested" }] }] })?.message).toMatch(/api_key/);
    expect(error({ strategy: { mode: "fallback" }, targets: [{ provider: "openai" }, { provider: "groq" }], cb_config: { failure_threshold: 3 } })).toBeNull();
  });
});
