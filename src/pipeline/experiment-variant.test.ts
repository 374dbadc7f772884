import { describe, expect, it } from "vitest";
import { configWithVariant } from "./experiment-variant.ts";
import type { RequestConfig } from "./request-config.ts";
import { buildRoutePlan, planLeaves } from "./routing-plan.ts";

function requestConfig(config: Parameters<typeof buildRoutePlan>[0]): RequestConfig {
  const plan = buildRoutePlan(config, "pc-test", "config");
  if (!plan.ok) throw plan.error;
  return { settings: { provider: config.provider, apiKey: config.api_key }, rootOverrides: config.override_params, plan: plan.value };
}

const leaves = (config: RequestConfig) => {
  const planned = planLeaves(config.plan, { metadata: {}, params: {}, route: "createChatCompletion" }, () => 0);
  if (!planned.ok) throw planned.error;
  return planned.value.map((leaf) => leaf.settings);
};

describe("configWithVariant", () => {
  const fallback = requestConfig({
    provider: "openai",
    api_key: "sk-root",
    override_params: { temperature: 1, max_tokens: 10 },
    strategy: { mode: "fallback" },
    targets: [{ custom_host: "http://127.0.0.1:9/v1", override_params: { temperature: 0.5, model: "a" } }, { provider: "anthropic", api_key: "sk-ant", virtual_key: undefined }],
  });

  it("makes the variant's model and params win at every level, and leaves the rest", () => {
    const changed = configWithVariant(fallback, { name: "v", weight: 1, model: "m", params: { temperature: 0.2 } });
    expect(changed.rootOverrides).toEqual({ temperature: 0.2, max_tokens: 10, model: "m" });
    expect(leaves(changed).map((settings) => settings.overrideParams)).toEqual([
      { temperature: 0.2, max_tokens: 10, model: "m" },
      { temperature: 0.2, max_tokens: 10, model: "m" },
    ]);
    expect(leaves(changed).map((settings) => [settings.provider, settings.customHost])).toEqual([
      ["openai", "http://127.0.0.1:9/v1"],
      ["anthropic", undefined],
    ]);
  });

  it("sends every target to the variant's virtual key, with no provider, key or host of the config's left", () => {
    const changed = configWithVariant(fallback, { name: "v", weight: 1, virtual_key: "vk-new" });
    for (const settings of leaves(changed)) {
      expect(settings.virtualKey).toBe("vk-new");
      expect([settings.provider, settings.apiKey, settings.customHost]).toEqual([undefined, undefined, undefined]);
    }
    expect(changed.settings).toEqual({ virtualKey: "vk-new" });
  });

  it("is the config itself for a variant that changes nothing, and made once per config and variant", () => {
    const control = { name: "control", weight: 1 };
    expect(configWithVariant(fallback, control)).toBe(fallback);
    const variant = { name: "v", weight: 1, provider: "openai" };
    expect(configWithVariant(fallback, variant)).toBe(configWithVariant(fallback, variant));
    expect(leaves(fallback)[0]?.overrideParams).toEqual({ temperature: 0.5, max_tokens: 10, model: "a" });
  });
});
