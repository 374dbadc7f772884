import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import type { ReconciliationRow } from "../records/reconciliation.ts";
import { scopeId, useStore } from "./store-test-fixtures.ts";

describe.each(TEST_DATABASES)("reconciliation on $name", ({ create }) => {
  const store = useStore(create);
  const settings = (workspaceId: string, virtualKeyId: string) => ({
    virtualKeyId,
    organisationId: "org-default",
    workspaceId,
    provider: "openai" as const,
    adminKey: { $sealed: "v1.iv.admin.tag" },
    baseUrl: null,
    projectId: "proj_1",
    apiKeyId: null,
    providerWorkspaceId: null,
    driftThresholdUsd: 1,
    driftThresholdRatio: 0.05,
    updatedBy: null,
    createdAt: "2026-03-01T00:00:00.000Z",
  });
  const row = (virtualKeyId: string, date: string, model: string, providerCostUsd: number | null): ReconciliationRow => ({
    virtualKeyId,
    date,
    model,
    gatewayCostUsd: 1,
    gatewayInputTokens: 10,
    gatewayOutputTokens: 20,
    gatewayRequests: 2,
    providerCostUsd,
    providerInputTokens: 10,
    providerOutputTokens: 20,
    driftUsd: providerCostUsd === null ? null : providerCostUsd - 1,
    driftRatio: null,
    drifted: providerCostUsd !== null && providerCostUsd > 2,
    checkedAt: "2026-03-02T00:00:00.000Z",
  });

  it("keeps settings per key, replaced by a second put, and lets one daily run take a key per day", async () => {
    const workspaceId = scopeId("ws");
    const key = crypto.randomUUID();
    await store().reconciliation.put(settings(workspaceId, key), "2026-03-01T00:00:00.000Z");
    const replaced = await store().reconciliation.put({ ...settings(workspaceId, key), projectId: "proj_2" }, "2026-03-02T00:00:00.000Z");
    expect(replaced).toMatchObject({ projectId: "proj_2", updatedAt: "2026-03-02T00:00:00.000Z", createdAt: "2026-03-01T00:00:00.000Z", lastDailyRun: null });
    expect(await store().reconciliation.get(scopeId("other"), key)).toBeUndefined();
    const claims = await Promise.all([store().reconciliation.claimDaily(key, "2026-03-03"), store().reconciliation.claimDaily(key, "2026-03-03")]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await store().reconciliation.claimDaily(key, "2026-03-03")).toBe(false);
    expect(await store().reconciliation.claimDaily(key, "2026-03-04")).toBe(true);
    expect((await store().reconciliation.get(workspaceId, key))?.lastDailyRun).toBe("2026-03-04");
    expect(await store().reconciliation.delete(workspaceId, key)).toBe(true);
  });

  it("replaces a key's row of a day and model, and lists rows newest day first, drifted ones when asked", async () => {
    const workspaceId = scopeId("ws");
    const key = crypto.randomUUID();
    await store().reconciliation.putRows(workspaceId, [row(key, "2026-03-01", "gpt-4o", 1.5), row(key, "2026-03-02", "gpt-4o", null)]);
    await store().reconciliation.putRows(workspaceId, [row(key, "2026-03-01", "gpt-4o", 5)]);
    const rows = await store().reconciliation.rows(workspaceId, { from: "2026-03-01", to: "2026-03-03", limit: 10 });
    expect(rows.map((each) => [each.date, each.providerCostUsd, each.drifted])).toEqual([
      ["2026-03-02", null, false],
      ["2026-03-01", 5, true],
    ]);
    expect((await store().reconciliation.rows(workspaceId, { from: "2026-03-01", to: "2026-03-03", driftedOnly: true, limit: 10 })).map((each) => each.date)).toEqual(["2026-03-01"]);
    expect(await store().reconciliation.rows(workspaceId, { from: "2026-03-02", to: "2026-03-03", virtualKeyId: crypto.randomUUID(), limit: 10 })).toEqual([]);
  });
});
