import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../../test/support/databases.ts";
import { newConfig, scopeId, useStore } from "../store-test-fixtures.ts";
import { rewriteConfig, up } from "./0006_structural_sealed_secrets.ts";

const BOX_OUTPUT = "v1.aXZpdml2aXZpdml2.dGFndGFndGFndGFndGFn.Y2lwaGVy";

describe("0006: sealed config keys in structural form", () => {
  it("rewrites former sealed keys at the root and in targets, and leaves every other value alone", () => {
    const former = { provider: "openai", api_key: `sealed:${BOX_OUTPUT}`, targets: [{ api_key: `sealed:${BOX_OUTPUT}` }, { virtual_key: "vk-a-00000000" }] };
    expect(JSON.parse(rewriteConfig(JSON.stringify(former)) ?? "null")).toEqual({
      provider: "openai",
      api_key: { $sealed: BOX_OUTPUT },
      targets: [{ api_key: { $sealed: BOX_OUTPUT } }, { virtual_key: "vk-a-00000000" }],
    });
    // A user's own key that only began with the prefix was never sealed: it stays as typed.
    expect(rewriteConfig(JSON.stringify({ api_key: "sealed:sk-typed" }))).toBeNull();
    expect(rewriteConfig(JSON.stringify({ api_key: { $sealed: BOX_OUTPUT } }))).toBeNull();
    expect(rewriteConfig("not json")).toBeNull();
  });
});

describe.each(TEST_DATABASES)("0006 on $name", ({ create }) => {
  const store = useStore(create);

  it("rewrites stored versions in place", async () => {
    const workspaceId = scopeId("ws");
    const former = newConfig({ workspaceId, config: JSON.stringify({ provider: "openai", api_key: `sealed:${BOX_OUTPUT}` }) });
    const untouched = newConfig({ workspaceId, config: JSON.stringify({ provider: "openai", api_key: "sealed:sk-typed" }) });
    await store().configs.create(former);
    await store().configs.create(untouched);
    await up(store().db as never);
    expect(JSON.parse((await store().configs.getBySlug(workspaceId, former.slug))?.latest.config ?? "{}").api_key).toEqual({ $sealed: BOX_OUTPUT });
    expect((await store().configs.getBySlug(workspaceId, untouched.slug))?.latest.config).toBe(untouched.config);
  });
});
