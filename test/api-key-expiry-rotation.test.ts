import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashGatewayKey } from "../src/control-plane/gateway-key-service.ts";
import { call, startGateway, type RunningGateway } from "./support/harness.ts";

/**
 * Gateway-key expiry and rotation through real HTTP. A key is used through `GET /v1/logs` (any
 * key may read its workspace's logs), so every check goes through the auth cache as real traffic does.
 */

let gateway: RunningGateway;

beforeAll(async () => {
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const statusWith = async (key: string) => (await call(gateway, "GET", "/v1/logs?limit=1", { key })).status;
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

async function createKey(body: Record<string, unknown> = {}) {
  const created = await call(gateway, "POST", "/v1/api-keys", { body: { name: "rotating", role: "service", ...body } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; key: string; key_prefix: string; expires_at: string | null };
}

async function rotate(id: string, body?: unknown) {
  const rotated = await call(gateway, "POST", `/v1/api-keys/${id}/rotate`, body === undefined ? {} : { body });
  expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
  return rotated.body as { id: string; key: string; key_prefix: string; previous_key_expires_at: string | null };
}

describe("gateway-key expiry", () => {
  it("refuses a key with 401 and the envelope once it expires, though it was cached", async () => {
    const key = await createKey({ expires_at: inMs(2_000) });
    expect(key.expires_at).not.toBeNull();
    expect(await statusWith(key.key)).toBe(200);
    await sleep(Date.parse(key.expires_at!) - Date.now() + 100);
    const refused = await call(gateway, "GET", "/v1/logs", { key: key.key });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ code: "invalid_api_key", type: "authentication_error" });
    expect(refused.body.error.message).toMatch(/expired/);
    const shown = await call(gateway, "GET", `/v1/api-keys/${key.id}`);
    expect(shown.body.expires_at).toBe(key.expires_at);
    // A new secret for it would be refused at once: rotation says so instead of handing one out.
    const rotated = await call(gateway, "POST", `/v1/api-keys/${key.id}/rotate`, { body: {} });
    expect(rotated.status).toBe(400);
    expect(rotated.body.error).toMatchObject({ code: "invalid_request", param: "id" });
    expect(rotated.body.error.message).toMatch(/expired/);
  });

  it("takes an expiry only in the future, and PATCH moves or clears it at once", async () => {
    for (const expires_at of ["2001-01-01T00:00:00Z", "not a date"]) {
      const refused = await call(gateway, "POST", "/v1/api-keys", { body: { name: "x", role: "service", expires_at } });
      expect(refused.status, expires_at).toBe(400);
      expect(refused.body.error.param).toBe("expires_at");
    }
    const key = await createKey({ expires_at: inMs(2_000) });
    expect(await statusWith(key.key)).toBe(200);
    const cleared = await call(gateway, "PATCH", `/v1/api-keys/${key.id}`, { body: { expires_at: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.expires_at).toBeNull();
    await sleep(Date.parse(key.expires_at!) - Date.now() + 200);
    expect(await statusWith(key.key)).toBe(200);

    const soon = inMs(1_500);
    const moved = await call(gateway, "PATCH", `/v1/api-keys/${key.id}`, { body: { expires_at: soon } });
    expect(moved.body.expires_at).toBe(soon);
    expect(await statusWith(key.key)).toBe(200);
    await sleep(Date.parse(soon) - Date.now() + 200);
    expect(await statusWith(key.key)).toBe(401);
    const past = await call(gateway, "PATCH", `/v1/api-keys/${key.id}`, { body: { expires_at: "2001-01-01T00:00:00Z" } });
    expect(past.status).toBe(400);
  });
});

describe("gateway-key rotation", () => {
  it("gives the same key a new secret; the old one works for the grace period, then is refused", async () => {
    const key = await createKey();
    expect(await statusWith(key.key)).toBe(200);
    const rotated = await rotate(key.id, { grace_period_seconds: 2 });
    expect(rotated.id).toBe(key.id);
    expect(rotated.key).not.toBe(key.key);
    expect(rotated.key.startsWith(rotated.key_prefix)).toBe(true);
    expect(await statusWith(rotated.key)).toBe(200);
    expect(await statusWith(key.key)).toBe(200);
    await sleep(Date.parse(rotated.previous_key_expires_at!) - Date.now() + 100);
    expect(await statusWith(key.key)).toBe(401);
    expect(await statusWith(rotated.key)).toBe(200);
    const shown = await call(gateway, "GET", `/v1/api-keys/${key.id}`);
    expect(shown.body).toMatchObject({ key_prefix: rotated.key_prefix, previous_key_expires_at: rotated.previous_key_expires_at });
    expect(shown.body.key).toBeUndefined();
  });

  it("defaults to a one-day grace period, and with zero grace refuses the old secret at once", async () => {
    const key = await createKey();
    const rotated = await rotate(key.id);
    const grace = Date.parse(rotated.previous_key_expires_at!) - Date.now();
    expect(grace).toBeGreaterThan(86_400_000 - 60_000);
    expect(grace).toBeLessThanOrEqual(86_400_000);

    const other = await createKey();
    expect(await statusWith(other.key)).toBe(200);
    const now = await rotate(other.id, { grace_period_seconds: 0 });
    expect(now.previous_key_expires_at).toBeNull();
    expect(await statusWith(other.key)).toBe(401);
    expect(await statusWith(now.key)).toBe(200);

    for (const grace_period_seconds of [-1, 30 * 24 * 3600 + 1, 1.5]) {
      const refused = await call(gateway, "POST", `/v1/api-keys/${key.id}/rotate`, { body: { grace_period_seconds } });
      expect(refused.status, String(grace_period_seconds)).toBe(400);
    }
  });

  it("rotating again during a grace period replaces the previous secret", async () => {
    const first = await createKey();
    const second = await rotate(first.id, { grace_period_seconds: 600 });
    expect(await statusWith(first.key)).toBe(200);
    const third = await rotate(first.id, { grace_period_seconds: 600 });
    expect(await statusWith(first.key)).toBe(401);
    expect(await statusWith(second.key)).toBe(200);
    expect(await statusWith(third.key)).toBe(200);
  });

  it("revoking a rotated key refuses both secrets at once, and it cannot be rotated again", async () => {
    const key = await createKey();
    const rotated = await rotate(key.id, { grace_period_seconds: 600 });
    expect(await statusWith(key.key)).toBe(200);
    expect(await statusWith(rotated.key)).toBe(200);
    expect((await call(gateway, "DELETE", `/v1/api-keys/${key.id}`)).status).toBe(200);
    expect(await statusWith(key.key)).toBe(401);
    expect(await statusWith(rotated.key)).toBe(401);
    const again = await call(gateway, "POST", `/v1/api-keys/${key.id}/rotate`, { body: {} });
    expect(again.status).toBe(400);
  });

  it("records the rotation in the audit log without either secret", async () => {
    const key = await createKey();
    const rotated = await rotate(key.id, { grace_period_seconds: 30 });
    const events = await call(gateway, "GET", `/v1/audit-events?action=api_key.rotated&resource_id=${key.id}`);
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0]).toMatchObject({ before: { key_prefix: key.key_prefix }, after: { key_prefix: rotated.key_prefix, previous_key_expires_at: rotated.previous_key_expires_at } });
    const text = JSON.stringify(events.body);
    for (const secret of [key.key, rotated.key]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(hashGatewayKey(secret));
    }
  });

  it("a service key cannot rotate a key", async () => {
    const service = await createKey();
    const denied = await call(gateway, "POST", `/v1/api-keys/${service.id}/rotate`, { key: service.key, body: {} });
    expect(denied.status).toBe(403);
  });
});
