import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import { newVirtualKey, scopeId, useStore } from "./store-test-fixtures.ts";

describe.each(TEST_DATABASES)("virtual keys repository on $name", ({ create }) => {
  const store = useStore(create);

  it("creates a key and reads it back with every field intact", async () => {
    const input = newVirtualKey({ workspaceId: scopeId("ws"), createdAt: "2026-02-03T04:05:06.789Z" });
    const { createdAt, ...fields } = input;
    const created = await store().virtualKeys.create(input);
    expect(created).toEqual({ ...fields, createdAt, updatedAt: createdAt });
    expect(await store().virtualKeys.getBySlug(input.workspaceId, input.slug)).toEqual(created);
    expect(await store().virtualKeys.getBySlug(input.workspaceId, "vk-missing")).toBeUndefined();
  });

  it("stores no budget and no rate limit as null, and a one-sided rate limit as given", async () => {
    const workspaceId = scopeId("ws");
    const bare = newVirtualKey({ workspaceId, budget: null, rateLimit: null, upstreamOrganization: null, upstreamProject: null, customHost: null });
    const emptyLimit = newVirtualKey({ workspaceId, rateLimit: { requestsPerMinute: null, requestsPerHour: null, requestsPerDay: null, tokensPerMinute: null, tokensPerHour: null, tokensPerDay: null } });
    const rpmOnly = newVirtualKey({ workspaceId, rateLimit: { requestsPerMinute: 30, requestsPerHour: null, requestsPerDay: null, tokensPerMinute: null, tokensPerHour: null, tokensPerDay: null }, budget: { creditLimitUsd: 0.25, period: "none", alertThreshold: null } });
    for (const key of [bare, emptyLimit, rpmOnly]) await store().virtualKeys.create(key);

    expect(await store().virtualKeys.getBySlug(workspaceId, bare.slug)).toMatchObject({
      budget: null,
      rateLimit: null,
      upstreamOrganization: null,
      upstreamProject: null,
      customHost: null,
    });
    expect((await store().virtualKeys.getBySlug(workspaceId, emptyLimit.slug))?.rateLimit).toBeNull();
    expect(await store().virtualKeys.getBySlug(workspaceId, rpmOnly.slug)).toMatchObject({
      rateLimit: { requestsPerMinute: 30, requestsPerHour: null, requestsPerDay: null, tokensPerMinute: null, tokensPerHour: null, tokensPerDay: null },
      budget: { creditLimitUsd: 0.25, period: "none", alertThreshold: null },
    });
    const row = await store().db.selectFrom("virtual_keys").selectAll().where("id", "=", bare.id).executeTakeFirstOrThrow();
    expect([row.budget_credit_limit_usd, row.budget_period, row.rate_limit_rpm, row.rate_limit_tpm]).toEqual([null, null, null, null]);
  });

  it("updates only the fields given, and null clears", async () => {
    const input = newVirtualKey({ workspaceId: scopeId("ws") });
    const created = await store().virtualKeys.create(input);

    const renamed = await store().virtualKeys.update(input.workspaceId, input.slug, { name: "renamed", updatedBy: "key-editor", at: "2026-01-02T00:00:00.000Z" });
    expect(renamed).toEqual({ ...created, name: "renamed", updatedBy: "key-editor", updatedAt: "2026-01-02T00:00:00.000Z" });

    const cleared = await store().virtualKeys.update(input.workspaceId, input.slug, {
      upstreamOrganization: null,
      upstreamProject: null,
      customHost: null,
      budget: null,
      rateLimit: null,
      updatedBy: null,
      at: "2026-01-03T00:00:00.000Z",
    });
    expect(cleared).toEqual({
      ...renamed,
      upstreamOrganization: null,
      upstreamProject: null,
      customHost: null,
      budget: null,
      rateLimit: null,
      updatedBy: null,
      updatedAt: "2026-01-03T00:00:00.000Z",
    });

    const rekeyed = await store().virtualKeys.update(input.workspaceId, input.slug, {
      encryptedKey: "v1.new.cipher.tag",
      keyHint: "wxyz",
      budget: { creditLimitUsd: 99, period: "weekly", alertThreshold: null },
      rateLimit: { requestsPerMinute: null, requestsPerHour: null, requestsPerDay: null, tokensPerMinute: 1_000, tokensPerHour: null, tokensPerDay: null },
      updatedBy: "key-editor",
      at: "2026-01-04T00:00:00.000Z",
    });
    expect(rekeyed).toMatchObject({
      name: "renamed",
      encryptedKey: "v1.new.cipher.tag",
      keyHint: "wxyz",
      budget: { creditLimitUsd: 99, period: "weekly", alertThreshold: null },
      rateLimit: { requestsPerMinute: null, requestsPerHour: null, requestsPerDay: null, tokensPerMinute: 1_000, tokensPerHour: null, tokensPerDay: null },
      provider: input.provider,
      createdAt: input.createdAt,
    });
    expect(await store().virtualKeys.getBySlug(input.workspaceId, input.slug)).toEqual(rekeyed);
  });

  it("lists one workspace's keys newest first", async () => {
    const workspaceId = scopeId("ws");
    const oldest = newVirtualKey({ workspaceId, createdAt: "2026-01-01T00:00:00.000Z" });
    const newest = newVirtualKey({ workspaceId, createdAt: "2026-01-03T00:00:00.000Z" });
    const middle = newVirtualKey({ workspaceId, createdAt: "2026-01-02T00:00:00.000Z" });
    for (const key of [middle, newVirtualKey({ workspaceId: scopeId("ws") }), newest, oldest]) await store().virtualKeys.create(key);

    const listed = await store().virtualKeys.list(workspaceId);
    expect(listed.map((key) => key.id)).toEqual([newest.id, middle.id, oldest.id]);
    expect(listed[0]).toEqual(await store().virtualKeys.getBySlug(workspaceId, newest.slug));
  });

  it("treats another workspace's key as not found for every operation", async () => {
    const input = newVirtualKey({ workspaceId: scopeId("ws") });
    const created = await store().virtualKeys.create(input);
    const stranger = scopeId("ws");

    expect(await store().virtualKeys.getBySlug(stranger, input.slug)).toBeUndefined();
    expect(await store().virtualKeys.update(stranger, input.slug, { name: "hijacked", budget: null, updatedBy: null, at: "2026-05-01T00:00:00.000Z" })).toBeUndefined();
    expect(await store().virtualKeys.list(stranger)).toEqual([]);
    expect(await store().virtualKeys.delete(stranger, input.slug)).toBe(false);
    expect(await store().virtualKeys.getBySlug(input.workspaceId, input.slug)).toEqual(created);
  });

  it("deletes a key once", async () => {
    const input = newVirtualKey({ workspaceId: scopeId("ws") });
    await store().virtualKeys.create(input);
    expect(await store().virtualKeys.delete(input.workspaceId, input.slug)).toBe(true);
    expect(await store().virtualKeys.getBySlug(input.workspaceId, input.slug)).toBeUndefined();
    expect(await store().virtualKeys.delete(input.workspaceId, input.slug)).toBe(false);
  });

  it("rejects a second key with the same slug", async () => {
    const first = newVirtualKey({ workspaceId: scopeId("ws") });
    await store().virtualKeys.create(first);
    await expect(store().virtualKeys.create(newVirtualKey({ slug: first.slug, workspaceId: scopeId("ws") }))).rejects.toThrow();
  });
});
