import { describe, expect, it } from "vitest";
import type { ApiKeyRecord } from "./api-key-record.ts";
import { hashGatewayKey } from "./gateway-key-secret.ts";
import { GatewayKeyService } from "./gateway-key-service.ts";

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
    ...overrides,
  };
}

/** A store lookup that counts its reads and can be changed between them. */
function lookup(initial: ApiKeyRecord | undefined) {
  const state = { stored: initial, reads: 0 };
  const findByHash = async (hash: string): Promise<ApiKeyRecord | undefined> => {
    state.reads += 1;
    return state.stored?.keyHash === hash ? state.stored : undefined;
  };
  return { state, findByHash };
}

describe("GatewayKeyService", () => {
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
});
