import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import { apiKeyRecord, scopeId, useStore } from "./store-test-fixtures.ts";

const hashOf = (label: string) => `${label}-${crypto.randomUUID().replaceAll("-", "")}`.padEnd(64, "0").slice(0, 64);

describe.each(TEST_DATABASES)("gateway-key expiry and rotation in the store on $name", ({ create }) => {
  const store = useStore(create);

  it("keeps an expiry, changes it and clears it", async () => {
    const organisationId = scopeId("org");
    const record = apiKeyRecord({ organisationId, expiresAt: "2030-01-01T00:00:00.000Z" });
    await store().apiKeys.insert(record);
    expect(await store().apiKeys.findByHash(record.keyHash)).toEqual(record);
    const moved = await store().apiKeys.update(record.id, organisationId, null, { expiresAt: "2031-02-03T04:05:06.007Z" });
    expect(moved?.expiresAt).toBe("2031-02-03T04:05:06.007Z");
    const cleared = await store().apiKeys.update(record.id, organisationId, null, { expiresAt: null });
    expect(cleared).toEqual({ ...record, expiresAt: null });
  });

  it("rotates: the new hash and the replaced one both find the key; rotating again replaces the previous one", async () => {
    const organisationId = scopeId("org");
    const record = apiKeyRecord({ organisationId, workspaceId: "ws-a" });
    await store().apiKeys.insert(record);
    const second = hashOf("second");
    expect(await store().apiKeys.rotate(record.id, organisationId, "ws-b", { keyHash: second, keyPrefix: "gw_sec", previousKeyExpiresAt: null })).toBeUndefined();

    const rotated = await store().apiKeys.rotate(record.id, organisationId, "ws-a", { keyHash: second, keyPrefix: "gw_sec", previousKeyExpiresAt: "2030-01-01T00:00:00.000Z" });
    expect(rotated).toEqual({ ...record, keyHash: second, keyPrefix: "gw_sec", previousKeyHash: record.keyHash, previousKeyExpiresAt: "2030-01-01T00:00:00.000Z" });
    expect((await store().apiKeys.findByHash(second))?.id).toBe(record.id);
    expect((await store().apiKeys.findByHash(record.keyHash))?.id).toBe(record.id);

    const third = hashOf("third");
    const again = await store().apiKeys.rotate(record.id, organisationId, null, { keyHash: third, keyPrefix: "gw_thi", previousKeyExpiresAt: "2030-01-02T00:00:00.000Z" });
    expect(again).toMatchObject({ keyHash: third, previousKeyHash: second, previousKeyExpiresAt: "2030-01-02T00:00:00.000Z" });
    expect(await store().apiKeys.findByHash(record.keyHash)).toBeUndefined();
    expect((await store().apiKeys.findByHash(second))?.id).toBe(record.id);
  });

  it("rotates with no grace period: the replaced hash finds nothing at once", async () => {
    const organisationId = scopeId("org");
    const record = apiKeyRecord({ organisationId });
    await store().apiKeys.insert(record);
    const next = hashOf("next");
    const rotated = await store().apiKeys.rotate(record.id, organisationId, null, { keyHash: next, keyPrefix: "gw_nex", previousKeyExpiresAt: null });
    expect(rotated).toMatchObject({ keyHash: next, previousKeyHash: null, previousKeyExpiresAt: null });
    expect(await store().apiKeys.findByHash(record.keyHash)).toBeUndefined();
  });

  it("does not rotate a revoked key", async () => {
    const organisationId = scopeId("org");
    const record = apiKeyRecord({ organisationId });
    await store().apiKeys.insert(record);
    await store().apiKeys.revoke(record.id, organisationId, null, "2026-01-01T00:00:00.000Z");
    const after = await store().apiKeys.rotate(record.id, organisationId, null, { keyHash: hashOf("late"), keyPrefix: "gw_lat", previousKeyExpiresAt: null });
    expect(after).toMatchObject({ keyHash: record.keyHash, revokedAt: "2026-01-01T00:00:00.000Z" });
  });
});
