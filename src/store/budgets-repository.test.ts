import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import { apiKeyRecord, newVirtualKey, scopeId, useStore } from "./store-test-fixtures.ts";
import { down as budgetsDown, up as budgetsUp } from "./migrations/0040_budgets.ts";
import type { NewBudget } from "./budgets-repository.ts";

function newBudget(overrides: Partial<NewBudget> = {}): NewBudget {
  return {
    id: crypto.randomUUID(),
    name: "search team",
    scope: { type: "metadata", key: "team", value: "search" },
    limitUsd: 25,
    period: { type: "calendar", unit: "month", timeZone: "Europe/Berlin", weekStart: "monday" },
    alertThresholds: [0.5, 0.8, 1],
    rateLimit: { requestsPerMinute: 10, requestsPerHour: null, requestsPerDay: null, tokensPerMinute: null, tokensPerHour: null, tokensPerDay: 5000 },
    source: "budget",
    organisationId: "org-default",
    workspaceId: scopeId("ws"),
    ownerId: "key-owner",
    updatedBy: "key-owner",
    createdAt: "2026-03-01T00:00:00.000Z",
    ...overrides,
  };
}

describe.each(TEST_DATABASES)("budgets on $name", ({ create }) => {
  const store = useStore(create);

  it("keeps every scope and period kind as given, lists newest first, changes and deletes within the workspace", async () => {
    const workspaceId = scopeId("ws");
    const scopes: NewBudget["scope"][] = [
      { type: "workspace" },
      { type: "api_key", apiKeyId: crypto.randomUUID() },
      { type: "virtual_key", virtualKeyId: crypto.randomUUID(), virtualKeySlug: "vk-a-00000000" },
      { type: "user", user: "alice" },
      { type: "user", user: null },
      { type: "metadata", key: "team", value: null },
      { type: "model", model: "gpt-4o" },
      { type: "model", model: null },
    ];
    const periods: NewBudget["period"][] = [{ type: "none" }, { type: "rolling", unit: "hour", count: 6 }, { type: "calendar", unit: "week", timeZone: "Asia/Tokyo", weekStart: "sunday" }];
    const created = [];
    for (const [index, scope] of scopes.entries()) {
      const budget = newBudget({ workspaceId, scope, period: periods[index % periods.length]!, createdAt: `2026-03-01T00:00:0${index}.000Z` });
      created.push(await store().budgets.create(budget));
      expect(await store().budgets.get(workspaceId, budget.id)).toMatchObject({ scope, period: budget.period, limitUsd: 25, alertThresholds: [0.5, 0.8, 1], source: "budget" });
    }
    expect((await store().budgets.list(workspaceId)).map((budget) => budget.id)).toEqual(created.map((budget) => budget.id).reverse());
    expect(await store().budgets.get(scopeId("other"), created[0]!.id)).toBeUndefined();

    const changed = await store().budgets.update(workspaceId, created[0]!.id, { limitUsd: null, rateLimit: null, alertThresholds: [], name: "renamed", updatedBy: "key-2", at: "2026-03-02T00:00:00.000Z" });
    expect(changed).toMatchObject({ name: "renamed", limitUsd: null, rateLimit: null, alertThresholds: [], updatedBy: "key-2", updatedAt: "2026-03-02T00:00:00.000Z", scope: { type: "workspace" } });
    expect(await store().budgets.delete(scopeId("other"), created[0]!.id)).toBe(false);
    expect(await store().budgets.delete(workspaceId, created[0]!.id)).toBe(true);
    expect(await store().budgets.get(workspaceId, created[0]!.id)).toBeUndefined();
  });

  it("finds a key's own budget and deletes every budget of a key that is gone", async () => {
    const workspaceId = scopeId("ws");
    const keyId = crypto.randomUUID();
    const scope = { type: "virtual_key" as const, virtualKeyId: keyId, virtualKeySlug: "vk-own-00000000" };
    const own = await store().budgets.create(newBudget({ workspaceId, scope, source: "key" }));
    await store().budgets.create(newBudget({ workspaceId, scope }));
    expect((await store().budgets.keyBudget(workspaceId, "virtual_key", keyId))?.id).toBe(own.id);
    expect(await store().budgets.keyBudget(workspaceId, "api_key", keyId)).toBeUndefined();
    expect(await store().budgets.deleteForKey(workspaceId, "virtual_key", keyId)).toBe(2);
    expect(await store().budgets.list(workspaceId)).toEqual([]);
  });

  it("lists the members of a budget held per value by spend, and the spend of current periods and rolling buckets", async () => {
    const budgetId = crypto.randomUUID();
    await store().spend.add(
      [
        { keyKind: "budget", keyId: `${budgetId}/alice`, periodStart: "2026-03-01T00:00:00.000Z", deltaUsd: 2 },
        { keyKind: "budget", keyId: `${budgetId}/bob`, periodStart: "2026-03-01T00:00:00.000Z", deltaUsd: 5 },
        { keyKind: "budget", keyId: `${budgetId}/carol`, periodStart: "2026-02-01T00:00:00.000Z", deltaUsd: 9 },
        { keyKind: "budget", keyId: `${budgetId}/dave`, periodStart: "r:2026-03-10T10:00:00.000Z", deltaUsd: 1 },
        { keyKind: "budget", keyId: `${budgetId}/dave`, periodStart: "r:2026-03-10T11:00:00.000Z", deltaUsd: 3 },
        { keyKind: "budget", keyId: `${budgetId}/erin`, periodStart: "r:2026-03-01T00:00:00.000Z", deltaUsd: 7 },
      ],
      "2026-03-10T12:00:00.000Z",
    );
    const members = await store().spend.members(budgetId, { start: "2026-03-01T00:00:00.000Z" }, 10);
    expect(members.map((row) => [row.keyId, row.spentUsd])).toEqual([
      [`${budgetId}/bob`, 5],
      [`${budgetId}/alice`, 2],
    ]);
    const rolling = await store().spend.members(budgetId, { rollingSinceIso: "2026-03-10T00:00:00.000Z" }, 10);
    expect(rolling.map((row) => [row.keyId, row.spentUsd])).toEqual([[`${budgetId}/dave`, 4]]);
    const current = await store().spend.current("2026-03-05T00:00:00.000Z");
    const mine = current.filter((row) => row.keyId.startsWith(budgetId)).map((row) => row.periodStart).sort();
    expect(mine).toEqual(["r:2026-03-10T10:00:00.000Z", "r:2026-03-10T11:00:00.000Z"]);
  });

  it("0040 moves every key's own budget and rate limit to a budget of its scope, with the spend it had", async () => {
    const workspaceId = scopeId("ws");
    // The state before 0040: limits in the keys' own columns, spend under the key's id.
    await budgetsDown(store().db as never);
    try {
      const virtualKey = newVirtualKey({ workspaceId, budget: { creditLimitUsd: 7, period: "weekly", alertThreshold: 0.75 }, rateLimit: null });
      const limitedKey = newVirtualKey({ workspaceId, budget: null });
      const plainKey = newVirtualKey({ workspaceId, budget: null, rateLimit: null });
      for (const key of [virtualKey, limitedKey, plainKey]) await store().virtualKeys.create(key);
      const apiKey = apiKeyRecord({ workspaceId, budget: { creditLimitUsd: 3, period: "none", alertThreshold: null }, rateLimit: null });
      await store().apiKeys.insert(apiKey);
      await sql`insert into key_spend (key_kind, key_id, period_start, spent_usd, updated_at) values
        ('virtual_key', ${virtualKey.id}, '2026-03-09T00:00:00.000Z', 1.25, '2026-03-10T00:00:00.000Z'),
        ('api_key', ${apiKey.id}, 'none', 0.5, '2026-03-10T00:00:00.000Z')`.execute(store().db);
    } finally {
      await budgetsUp(store().db as never);
    }
    const budgets = await store().budgets.list(workspaceId);
    expect(budgets).toHaveLength(3);
    const weekly = budgets.find((budget) => budget.limitUsd === 7)!;
    expect(weekly).toMatchObject({
      source: "key",
      scope: { type: "virtual_key" },
      period: { type: "calendar", unit: "week", timeZone: "UTC", weekStart: "monday" },
      alertThresholds: [0.75],
      rateLimit: null,
    });
    const rateOnly = budgets.find((budget) => budget.limitUsd === null)!;
    expect(rateOnly).toMatchObject({ source: "key", period: { type: "none" }, rateLimit: { requestsPerMinute: 60, tokensPerMinute: 90_000, requestsPerHour: null } });
    const gatewayKey = budgets.find((budget) => budget.scope.type === "api_key")!;
    expect(gatewayKey).toMatchObject({ limitUsd: 3, period: { type: "none" } });
    const spend = await store().spend.inPeriods(["2026-03-09T00:00:00.000Z", "none"]);
    expect(spend.filter((row) => row.keyId === weekly.id)).toEqual([{ keyKind: "budget", keyId: weekly.id, periodStart: "2026-03-09T00:00:00.000Z", spentUsd: 1.25 }]);
    expect(spend.filter((row) => row.keyId === gatewayKey.id)).toEqual([{ keyKind: "budget", keyId: gatewayKey.id, periodStart: "none", spentUsd: 0.5 }]);
  });
});
