import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import type { AuditEventRecord } from "../records/audit-event.ts";
import { apiKeyRecord, scopeId, useStore, uuidv7At } from "./store-test-fixtures.ts";

const T0 = Date.parse("2026-05-01T00:00:00.000Z");

function event(overrides: Partial<AuditEventRecord> & { at: number }): AuditEventRecord {
  const { at, ...rest } = overrides;
  return {
    id: uuidv7At(at),
    organisationId: "org",
    workspaceId: "ws",
    actorKeyId: "actor",
    action: "config.updated",
    resourceType: "config",
    resourceId: "config-1",
    resourceSlug: "pc-one",
    before: { name: "one", nested: { list: [1, 2] } },
    after: { name: "two", nested: { list: [3] } },
    requestId: null,
    createdAt: new Date(at).toISOString(),
    ...rest,
  };
}

describe.each(TEST_DATABASES)("audit events repository on $name", ({ create }) => {
  const store = useStore(create);

  it("keeps every field and lists one workspace newest first, page by page", async () => {
    const workspaceId = scopeId("ws");
    const events = [0, 1, 2, 3, 4].map((i) => event({ at: T0 + i * 1000, workspaceId, requestId: i === 2 ? "req-2" : null }));
    for (const one of [events[3]!, events[0]!, events[4]!, events[1]!, events[2]!]) await store().audit.insert(one);
    await store().audit.insert(event({ at: T0 + 500, workspaceId: scopeId("ws") }));
    await store().audit.insert(event({ at: T0 + 600, workspaceId, organisationId: "other-org" }));

    const first = await store().audit.list({ organisationId: "org", workspaceId, limit: 2 });
    expect(first.records).toEqual([events[4], events[3]]);
    expect(first.hasMore).toBe(true);
    const second = await store().audit.list({ organisationId: "org", workspaceId, limit: 2, before: first.records[1]!.id });
    expect(second.records.map((one) => one.id)).toEqual([events[2]!.id, events[1]!.id]);
    expect(second.records[0]?.requestId).toBe("req-2");
    const last = await store().audit.list({ organisationId: "org", workspaceId, limit: 2, before: second.records[1]!.id });
    expect(last).toEqual({ records: [events[0]], hasMore: false });
  });

  it("filters by action, resource type, resource, actor and time (from inclusive, to exclusive)", async () => {
    const workspaceId = scopeId("ws");
    const created = event({ at: T0, workspaceId, action: "api_key.created", resourceType: "api_key", resourceId: "key-1", resourceSlug: null, before: null });
    const rotated = event({ at: T0 + 1000, workspaceId, action: "api_key.rotated", resourceType: "api_key", resourceId: "key-1", resourceSlug: null, actorKeyId: "other-actor" });
    const deleted = event({ at: T0 + 2000, workspaceId, action: "config.deleted", after: null });
    for (const one of [created, rotated, deleted]) await store().audit.insert(one);
    const ids = async (filters: object) => (await store().audit.list({ organisationId: "org", workspaceId, limit: 50, ...filters })).records.map((one) => one.id);

    expect(await ids({ action: "api_key.rotated" })).toEqual([rotated.id]);
    expect(await ids({ resourceType: "api_key" })).toEqual([rotated.id, created.id]);
    expect(await ids({ resourceId: "config-1" })).toEqual([deleted.id]);
    expect(await ids({ actorKeyId: "other-actor" })).toEqual([rotated.id]);
    expect(await ids({ from: new Date(T0 + 1000).toISOString() })).toEqual([deleted.id, rotated.id]);
    expect(await ids({ to: "2026-05-01T02:00:01+02:00" })).toEqual([created.id]);
    expect(await ids({ to: "2026-05-01T02:00:01.001+02:00" })).toEqual([rotated.id, created.id]);
    const none = await store().audit.list({ organisationId: "org", workspaceId, limit: 50, action: "prompt.published" });
    expect(none).toEqual({ records: [], hasMore: false });
    const [stored] = (await store().audit.list({ organisationId: "org", workspaceId, limit: 1, action: "config.deleted" })).records;
    expect(stored).toEqual(deleted);
    expect(stored?.after).toBeNull();
  });

  it("writes a change and its event in one transaction: when the work fails, neither lands", async () => {
    const organisationId = scopeId("org");
    const workspaceId = scopeId("ws");
    const key = apiKeyRecord({ organisationId, workspaceId });
    await expect(
      store().transaction(async (tx) => {
        await tx.apiKeys.insert(key);
        await tx.audit.insert(event({ at: T0, organisationId, workspaceId, resourceId: key.id }));
        throw new Error("the change fails after both writes");
      }),
    ).rejects.toThrow("the change fails");
    expect(await store().apiKeys.findByHash(key.keyHash)).toBeUndefined();
    expect((await store().audit.list({ organisationId, workspaceId, limit: 10 })).records).toEqual([]);

    // A repository's own multi-statement write joins the caller's transaction.
    await store().transaction(async (tx) => {
      await tx.apiKeys.insert(key);
      await tx.apiKeys.update(key.id, organisationId, workspaceId, { name: "renamed" });
      await tx.audit.insert(event({ at: T0, organisationId, workspaceId, resourceId: key.id }));
    });
    expect((await store().apiKeys.findByHash(key.keyHash))?.name).toBe("renamed");
    expect((await store().audit.list({ organisationId, workspaceId, limit: 10 })).records.map((one) => one.resourceId)).toEqual([key.id]);
  });
});
