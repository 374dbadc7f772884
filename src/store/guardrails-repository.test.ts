import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import { newGuardrail, scopeId, useStore } from "./store-test-fixtures.ts";

describe.each(TEST_DATABASES)("guardrails repository on $name", ({ create }) => {
  const store = useStore(create);

  it("creates a guardrail and reads its checks and action back intact", async () => {
    const input = newGuardrail({ workspaceId: scopeId("ws"), createdAt: "2026-02-03T04:05:06.789Z", action: { deny: false } });
    const { createdAt, ...fields } = input;
    const created = await store().guardrails.create(input);
    expect(created).toEqual({ ...fields, createdAt, updatedAt: createdAt });
    expect(await store().guardrails.getBySlug(input.workspaceId, input.slug)).toEqual(created);
    expect(await store().guardrails.getBySlug(input.workspaceId, "pg-missing")).toBeUndefined();
  });

  it("updates only the fields given", async () => {
    const input = newGuardrail({ workspaceId: scopeId("ws") });
    const created = await store().guardrails.create(input);

    const renamed = await store().guardrails.update(input.workspaceId, input.slug, { name: "renamed", updatedBy: "key-editor", at: "2026-01-02T00:00:00.000Z" });
    expect(renamed).toEqual({ ...created, name: "renamed", updatedBy: "key-editor", updatedAt: "2026-01-02T00:00:00.000Z" });

    const checks = [{ type: "contains", params: { words: ["secret"], operator: "none" } }];
    const rechecked = await store().guardrails.update(input.workspaceId, input.slug, {
      checks,
      action: { deny: false },
      updatedBy: null,
      at: "2026-01-03T00:00:00.000Z",
    });
    expect(rechecked).toEqual({ ...renamed, checks, action: { deny: false }, updatedBy: null, updatedAt: "2026-01-03T00:00:00.000Z" });
    expect(await store().guardrails.getBySlug(input.workspaceId, input.slug)).toEqual(rechecked);
  });

  it("lists one workspace's guardrails newest first", async () => {
    const workspaceId = scopeId("ws");
    const oldest = newGuardrail({ workspaceId, createdAt: "2026-01-01T00:00:00.000Z" });
    const newest = newGuardrail({ workspaceId, createdAt: "2026-01-03T00:00:00.000Z" });
    const middle = newGuardrail({ workspaceId, createdAt: "2026-01-02T00:00:00.000Z" });
    for (const guardrail of [middle, newGuardrail({ workspaceId: scopeId("ws") }), newest, oldest]) await store().guardrails.create(guardrail);

    const listed = await store().guardrails.list(workspaceId);
    expect(listed.map((guardrail) => guardrail.id)).toEqual([newest.id, middle.id, oldest.id]);
    expect(listed[0]).toEqual(await store().guardrails.getBySlug(workspaceId, newest.slug));
  });

  it("treats another workspace's guardrail as not found for every operation", async () => {
    const input = newGuardrail({ workspaceId: scopeId("ws") });
    const created = await store().guardrails.create(input);
    const stranger = scopeId("ws");

    expect(await store().guardrails.getBySlug(stranger, input.slug)).toBeUndefined();
    expect(await store().guardrails.update(stranger, input.slug, { checks: [], updatedBy: null, at: "2026-05-01T00:00:00.000Z" })).toBeUndefined();
    expect(await store().guardrails.list(stranger)).toEqual([]);
    expect(await store().guardrails.delete(stranger, input.slug)).toBe(false);
    expect(await store().guardrails.getBySlug(input.workspaceId, input.slug)).toEqual(created);
  });

  it("deletes a guardrail once", async () => {
    const input = newGuardrail({ workspaceId: scopeId("ws") });
    await store().guardrails.create(input);
    expect(await store().guardrails.delete(input.workspaceId, input.slug)).toBe(true);
    expect(await store().guardrails.getBySlug(input.workspaceId, input.slug)).toBeUndefined();
    expect(await store().guardrails.delete(input.workspaceId, input.slug)).toBe(false);
  });
});
