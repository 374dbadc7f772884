import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import { apiKeyRecord, scopeId, useStore } from "./store-test-fixtures.ts";

describe.each(TEST_DATABASES)("api keys repository on $name", ({ create }) => {
  const store = useStore(create);

  it("finds an inserted key by hash with every field intact", async () => {
    const record = apiKeyRecord({
      role: "admin",
      organisationAdmin: true,
      createdBy: "key-creator",
      createdAt: "2026-03-04T05:06:07.089Z",
    });
    await store().apiKeys.insert(record);
    expect(await store().apiKeys.findByHash(record.keyHash)).toEqual(record);
    expect(await store().apiKeys.findByHash("f".repeat(64))).toBeUndefined();
  });

  it("rejects a second key with the same hash", async () => {
    const first = apiKeyRecord();
    await store().apiKeys.insert(first);
    await expect(store().apiKeys.insert(apiKeyRecord({ keyHash: first.keyHash }))).rejects.toThrow();
  });

  it("revokes only within the caller's organisation and workspace", async () => {
    const organisationId = scopeId("org");
    const record = apiKeyRecord({ organisationId, workspaceId: "ws-a" });
    await store().apiKeys.insert(record);

    expect(await store().apiKeys.revoke(record.id, organisationId, "ws-b", "2026-02-01T00:00:00.000Z")).toBeUndefined();
    expect(await store().apiKeys.revoke(record.id, scopeId("org"), null, "2026-02-01T00:00:00.000Z")).toBeUndefined();
    expect((await store().apiKeys.findByHash(record.keyHash))?.revokedAt).toBeNull();

    const revoked = await store().apiKeys.revoke(record.id, organisationId, "ws-a", "2026-02-02T00:00:00.000Z");
    expect(revoked).toEqual({ ...record, revokedAt: "2026-02-02T00:00:00.000Z" });
    expect(await store().apiKeys.findByHash(record.keyHash)).toEqual(revoked);

    const again = await store().apiKeys.revoke(record.id, organisationId, "ws-a", "2026-02-03T00:00:00.000Z");
    expect(again?.revokedAt).toBe("2026-02-02T00:00:00.000Z");
  });

  it("lets an organisation-wide revoke (null workspace) reach any workspace of the organisation", async () => {
    const organisationId = scopeId("org");
    const record = apiKeyRecord({ organisationId, workspaceId: "ws-other" });
    await store().apiKeys.insert(record);
    const revoked = await store().apiKeys.revoke(record.id, organisationId, null, "2026-02-04T00:00:00.000Z");
    expect(revoked?.revokedAt).toBe("2026-02-04T00:00:00.000Z");
    expect(await store().apiKeys.revoke("no-such-id", organisationId, null, "2026-02-04T00:00:00.000Z")).toBeUndefined();
  });

  it("lists one workspace's keys, newest first, revoked ones included", async () => {
    const organisationId = scopeId("org");
    const workspaceId = scopeId("ws");
    const oldest = apiKeyRecord({ organisationId, workspaceId, createdAt: "2026-01-01T00:00:00.000Z" });
    const middle = apiKeyRecord({ organisationId, workspaceId, createdAt: "2026-01-02T00:00:00.000Z" });
    const newest = apiKeyRecord({ organisationId, workspaceId, createdAt: "2026-01-03T00:00:00.000Z" });
    const otherWorkspace = apiKeyRecord({ organisationId, workspaceId: scopeId("ws") });
    const otherOrganisation = apiKeyRecord({ organisationId: scopeId("org"), workspaceId });
    for (const record of [middle, otherWorkspace, newest, otherOrganisation, oldest]) {
      await store().apiKeys.insert(record);
    }
    await store().apiKeys.revoke(middle.id, organisationId, workspaceId, "2026-01-05T00:00:00.000Z");

    const listed = await store().apiKeys.listByWorkspace(organisationId, workspaceId);
    expect(listed.map((key) => key.id)).toEqual([newest.id, middle.id, oldest.id]);
    expect(listed[1]?.revokedAt).toBe("2026-01-05T00:00:00.000Z");
    expect(listed[0]).toEqual(newest);
    expect(await store().apiKeys.listByWorkspace(organisationId, scopeId("ws"))).toEqual([]);
  });

  it("counts active keys only", async () => {
    const before = await store().apiKeys.countActive();
    const organisationId = scopeId("org");
    const kept = apiKeyRecord({ organisationId });
    const dropped = apiKeyRecord({ organisationId });
    await store().apiKeys.insert(kept);
    await store().apiKeys.insert(dropped);
    expect(await store().apiKeys.countActive()).toBe(before + 2);
    await store().apiKeys.revoke(dropped.id, organisationId, null, "2026-01-06T00:00:00.000Z");
    expect(await store().apiKeys.countActive()).toBe(before + 1);
  });
});
