import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import { scopeId, useStore } from "./store-test-fixtures.ts";
import type { NewDelivery } from "./webhooks-repository.ts";

describe.each(TEST_DATABASES)("webhooks on $name", ({ create }) => {
  const store = useStore(create);

  async function webhook(workspaceId: string, events: NewDelivery["eventType"][] = ["budget.threshold_crossed"]) {
    return store().webhooks.create({
      id: crypto.randomUUID(),
      url: "http://127.0.0.1:9/hook",
      description: null,
      secret: { $sealed: "v1.iv.secret.tag" },
      events,
      enabled: true,
      organisationId: "org-default",
      workspaceId,
      ownerId: null,
      updatedBy: null,
      createdAt: "2026-03-01T00:00:00.000Z",
    });
  }

  const delivery = (webhookId: string, workspaceId: string, dedupKey: string): NewDelivery => ({
    id: crypto.randomUUID(),
    webhookId,
    workspaceId,
    eventId: `evt_${crypto.randomUUID()}`,
    eventType: "budget.threshold_crossed",
    dedupKey,
    payload: '{"type":"budget.threshold_crossed"}',
  });

  it("queues an event once per webhook and key, and finds the subscribed, enabled webhooks", async () => {
    const workspaceId = scopeId("ws");
    const hook = await webhook(workspaceId);
    await webhook(workspaceId, ["run.halted"]);
    const disabled = await webhook(workspaceId);
    await store().webhooks.update(workspaceId, disabled.id, { enabled: false, updatedBy: null, at: "2026-03-02T00:00:00.000Z" });
    expect((await store().webhooks.subscribed(workspaceId, "budget.threshold_crossed")).map((found) => found.id)).toEqual([hook.id]);
    expect(await store().webhooks.enqueue([delivery(hook.id, workspaceId, "budget:b:none:0.5")], "2026-03-01T00:00:00.000Z")).toBe(1);
    expect(await store().webhooks.enqueue([delivery(hook.id, workspaceId, "budget:b:none:0.5"), delivery(hook.id, workspaceId, "budget:b:none:1")], "2026-03-01T00:00:00.000Z")).toBe(1);
    expect(await store().webhooks.deliveries(workspaceId, hook.id, { limit: 10 })).toHaveLength(2);
  });

  it("leases each due delivery to one claimant, and a finished one is not due again", async () => {
    const workspaceId = scopeId("ws");
    const hook = await webhook(workspaceId);
    await store().webhooks.enqueue([delivery(hook.id, workspaceId, "a"), delivery(hook.id, workspaceId, "b")], "2000-01-01T00:00:00.000Z");
    const now = "2000-01-01T00:00:01.000Z";
    const [first, second] = await Promise.all([store().webhooks.claimDue(now, "2000-01-01T00:01:00.000Z", 10), store().webhooks.claimDue(now, "2000-01-01T00:01:00.000Z", 10)]);
    const mine = [...first!, ...second!].filter((claimed) => claimed.webhookId === hook.id);
    expect(mine.map((claimed) => claimed.dedupKey).sort()).toEqual(["a", "b"]);
    // Leased: not due again before the lease ends; due once it has.
    expect((await store().webhooks.claimDue(now, "2000-01-01T00:01:00.000Z", 10)).filter((claimed) => claimed.webhookId === hook.id)).toEqual([]);
    expect((await store().webhooks.claimDue("2000-01-01T00:02:00.000Z", "2000-01-01T00:03:00.000Z", 10)).filter((claimed) => claimed.webhookId === hook.id)).toHaveLength(2);
    const byKey = (key: string) => mine.find((claimed) => claimed.dedupKey === key)!;
    await store().webhooks.finish(byKey("a").id, { status: "delivered", attempts: 1, nextAttemptAt: null, statusCode: 200, error: null, deliveredAt: now });
    await store().webhooks.finish(byKey("b").id, { status: "pending", attempts: 1, nextAttemptAt: "2000-01-01T00:05:00.000Z", statusCode: 500, error: "The receiver answered 500.", deliveredAt: null });
    expect((await store().webhooks.claimDue("2000-01-01T00:04:00.000Z", "2000-01-01T00:05:00.000Z", 10)).filter((claimed) => claimed.webhookId === hook.id)).toEqual([]);
    const retried = (await store().webhooks.claimDue("2000-01-01T00:06:00.000Z", "2000-01-01T00:07:00.000Z", 10)).filter((claimed) => claimed.webhookId === hook.id);
    expect(retried.map((claimed) => [claimed.dedupKey, claimed.attempts, claimed.lastStatusCode])).toEqual([["b", 1, 500]]);
    expect((await store().webhooks.deliveries(workspaceId, hook.id, { limit: 10, status: "delivered" })).map((found) => found.dedupKey)).toEqual(["a"]);
    expect(await store().webhooks.delete(workspaceId, hook.id)).toBe(true);
    expect(await store().webhooks.deliveries(workspaceId, hook.id, { limit: 10 })).toEqual([]);
  });
});
