import { describe, expect, it } from "vitest";
import type { ApiKeyRecord } from "../records/api-key.ts";
import { GatewayKeyService, generateGatewayKeySecret, hashesEqual, hashGatewayKey } from "./gateway-key-service.ts";

const SECRET = "gw_stored-key-0123456789abcdef";

function record(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: "key-1",
    organisationId: "org",
    workspaceId: "ws",
    name: "stored",
    role: "service",
    organisationAdmin: false,
    keyHash: hashGatewayKey(SECRET),
    keyPrefix: "gw_sto",
    createdAt: "2026-11-22T00:00:00.000Z",
    createdBy: null,
    revokedAt: null,
    expiresAt: null,
    previousKeyHash: null,
    previousKeyExpiresAt: null,
    budget: null,
    rateLimit: null,
    mcpAccess: null,
    ...overrides,
  };
}

/** A store lookup that counts its reads and can be changed between them. */
function lookup(initial: ApiKeyRecord | undefined) {
  const state = { stored: initial, reads: 0 };
  const findByHash = async (hash: string): Promise<ApiKeyRecord | undefined> => {
    state.reads += 1;
    const stored = state.stored;
    return stored && (stored.keyHash === hash || stored.previousKeyHash === hash) ? stored : undefined;
  };
  return { state, findByHash };
}

describe("GatewayKeyService", () => {
  it("keeps serving a known key when the store is down, and refuses an unknown one with the store's error", async () => {
    const store = lookup(record());
    let now = 0;
    let down = false;
    const keys = new GatewayKeyService(
      { findByHash: (hash) => (down ? Promise.reject(new Error("connect ECONNREFUSED")) : store.findByHash(hash)) },
      { ttlMs: 1000, now: () => now },
    );
    expect(await keys.authenticate(SECRET)).toMatchObject({ keyId: "key-1" });
    down = true;
    now = 5000;
    expect(await keys.authenticate(SECRET)).toMatchObject({ keyId: "key-1" });
    await expect(keys.authenticate("gw_never-seen-0123456789abcdef")).rejects.toThrow("ECONNREFUSED");
    down = false;
    store.state.stored = record({ revokedAt: "2026-11-22T01:00:00.000Z" });
    expect(await keys.authenticate(SECRET)).toBeNull();
  });

  it("does not keep a lookup that a revocation overtook", async () => {
    const store = lookup(record());
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const keys = new GatewayKeyService({ findByHash: async (hash) => (await gate, store.findByHash(hash)) }, { ttlMs: 60_000 });
    const pending = keys.authenticate(SECRET);
    keys.forget(hashGatewayKey(SECRET));
    release();
    expect(await pending).not.toBeNull();
    expect(keys.authenticateCached(SECRET)).toBeUndefined();
  });

  it("answers the env admin key at once, from the cache after one read, and only then without waiting", async () => {
    const store = lookup(record());
    let now = 0;
    const keys = new GatewayKeyService(store, { adminKey: "env-admin-key-0123456789", ttlMs: 1000, now: () => now });
    expect(keys.authenticateCached("env-admin-key-0123456789")).toMatchObject({ role: "admin", organisationAdmin: true });
    expect(keys.authenticateCached(SECRET)).toBeUndefined();
    expect(await keys.authenticate(SECRET)).toMatchObject({ keyId: "key-1", workspaceId: "ws", role: "service" });
    expect(keys.authenticateCached(SECRET)).toMatchObject({ keyId: "key-1" });
    expect(store.state.reads).toBe(1);
    now = 1001;
    expect(keys.authenticateCached(SECRET)).toBeUndefined();
  });

  it("remembers a refusal, and forgets a revoked key at once", async () => {
    const store = lookup(record());
    const keys = new GatewayKeyService(store, { ttlMs: 60_000 });
    expect(await keys.authenticate("gw_wrong-key-0123456789abcdef")).toBeNull();
    expect(keys.authenticateCached("gw_wrong-key-0123456789abcdef")).toBeNull();
    expect(await keys.authenticate(SECRET)).not.toBeNull();
    store.state.stored = record({ revokedAt: "2026-11-22T01:00:00.000Z" });
    keys.forget(hashGatewayKey(SECRET));
    expect(keys.authenticateCached(SECRET)).toBeUndefined();
    expect(await keys.authenticate(SECRET)).toBeNull();
    expect(keys.authenticateCached(SECRET)).toBeNull();
  });

  it("refuses a key from its expiry instant on, on a cached hit, without reading the store again", async () => {
    const store = lookup(record({ expiresAt: "2026-11-22T00:00:10.000Z" }));
    let now = Date.parse("2026-11-22T00:00:00.000Z");
    const keys = new GatewayKeyService(store, { ttlMs: 60_000, now: () => now });
    expect(await keys.authenticate(SECRET)).toMatchObject({ keyId: "key-1" });
    now += 9_999;
    expect(keys.authenticateCached(SECRET)).toMatchObject({ keyId: "key-1" });
    now += 1;
    expect(keys.authenticateCached(SECRET)).toBeNull();
    expect(await keys.authenticate(SECRET)).toBeNull();
    expect(store.state.reads).toBe(1);
  });

  it("refuses an already expired key on its first read, and accepts it again once its expiry is lifted and it is forgotten", async () => {
    const store = lookup(record({ expiresAt: "2026-11-22T00:00:00.000Z" }));
    const now = Date.parse("2026-11-22T00:00:00.000Z");
    const keys = new GatewayKeyService(store, { ttlMs: 60_000, now: () => now });
    expect(await keys.authenticate(SECRET)).toBeNull();
    store.state.stored = record({ expiresAt: null });
    expect(keys.authenticateCached(SECRET)).toBeNull();
    keys.forget(hashGatewayKey(SECRET));
    expect(await keys.authenticate(SECRET)).toMatchObject({ keyId: "key-1" });
  });

  it("accepts a rotated-out secret until its grace period ends (or the key's own expiry, if sooner), and the new one after", async () => {
    const NEW = "gw_rotated-key-0123456789abcdef";
    let now = Date.parse("2026-11-22T00:00:00.000Z");
    const rotated = record({ keyHash: hashGatewayKey(NEW), previousKeyHash: hashGatewayKey(SECRET), previousKeyExpiresAt: "2026-11-22T00:00:05.000Z" });
    const store = lookup(rotated);
    const keys = new GatewayKeyService(store, { ttlMs: 60_000, now: () => now });
    expect(await keys.authenticate(SECRET)).toMatchObject({ keyId: "key-1" });
    expect(await keys.authenticate(NEW)).toMatchObject({ keyId: "key-1" });
    now += 4_999;
    expect(keys.authenticateCached(SECRET)).toMatchObject({ keyId: "key-1" });
    now += 1;
    expect(keys.authenticateCached(SECRET)).toBeNull();
    expect(keys.authenticateCached(NEW)).toMatchObject({ keyId: "key-1" });
    expect(store.state.reads).toBe(2);

    // The key itself expires before the grace period would end: the old secret stops with it.
    store.state.stored = { ...rotated, expiresAt: "2026-11-22T00:00:07.000Z", previousKeyExpiresAt: "2026-11-22T00:00:09.000Z" };
    keys.forget(hashGatewayKey(SECRET));
    keys.forget(hashGatewayKey(NEW));
    expect(await keys.authenticate(SECRET)).not.toBeNull();
    expect(await keys.authenticate(NEW)).not.toBeNull();
    now += 2_000;
    expect(keys.authenticateCached(SECRET)).toBeNull();
    expect(keys.authenticateCached(NEW)).toBeNull();
  });

  it("refuses both secrets of a rotated key once it is revoked", async () => {
    const NEW = "gw_rotated-key-0123456789abcdef";
    const store = lookup(record({ keyHash: hashGatewayKey(NEW), previousKeyHash: hashGatewayKey(SECRET), previousKeyExpiresAt: "2999-01-01T00:00:00.000Z", revokedAt: "2026-11-22T00:00:00.000Z" }));
    const keys = new GatewayKeyService(store, { ttlMs: 60_000 });
    expect(await keys.authenticate(SECRET)).toBeNull();
    expect(await keys.authenticate(NEW)).toBeNull();
  });
});

describe("gateway key hashes", () => {
  it("hashes a secret to lowercase hex SHA-256", () => {
    expect(hashGatewayKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("compares hashes: equal, one character off anywhere, other lengths", () => {
    const hash = hashGatewayKey(generateGatewayKeySecret());
    expect(hashesEqual(hash, `${hash}`)).toBe(true);
    for (const at of [0, 31, 63]) {
      const other = hash.slice(0, at) + (hash[at] === "0" ? "1" : "0") + hash.slice(at + 1);
      expect(hashesEqual(hash, other)).toBe(false);
    }
    expect(hashesEqual(hash, hash.slice(1))).toBe(false);
    expect(hashesEqual("", "")).toBe(true);
  });
});
