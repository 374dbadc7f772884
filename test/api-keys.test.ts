import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { hashGatewayKey } from "../src/control-plane/gateway-key-service.ts";
import { call, startGateway, startUpstream, upstreamHeaders, type RunningGateway } from "./support/harness.ts";

let gateway: RunningGateway;
let upstream: LLMock;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("hello", { content: "Hello back" });
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
});

const createKey = (body: unknown, key?: string) => call(gateway, "POST", "/v1/api-keys", { body, key });
const chatWith = (key: string) =>
  call(gateway, "POST", "/v1/chat/completions", {
    body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] },
    headers: { ...upstreamHeaders(gateway, upstream, key) },
  });

describe("gateway keys", () => {
  it("creates a key whose secret is shown once and stored only as a hash", async () => {
    const created = await createKey({ name: "ci", role: "service" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: "api_key", name: "ci", role: "service", revoked_at: null });
    expect(created.body.key).toMatch(/^gw_[A-Za-z0-9_-]{40,}$/);
    expect(created.body.key.startsWith(created.body.key_prefix)).toBe(true);

    const stored = await gateway.gateway.deps.store.apiKeys.findByHash(hashGatewayKey(created.body.key));
    expect(stored?.id).toBe(created.body.id);
    expect(JSON.stringify(stored)).not.toContain(created.body.key);

    const list = await call(gateway, "GET", "/v1/api-keys");
    expect(list.status).toBe(200);
    const listed = list.body.data.find((key: { id: string }) => key.id === created.body.id);
    expect(listed).toBeDefined();
    expect(listed.key).toBeUndefined();
    expect(JSON.stringify(list.body)).not.toContain(created.body.key);
  });

  it("a service key runs inference and reads logs but gets 403 on admin routes", async () => {
    const { body } = await createKey({ name: "service", role: "service" });
    const chat = await chatWith(body.key);
    expect(chat.status).toBe(200);
    const logs = await call(gateway, "GET", "/v1/logs", { key: body.key });
    expect(logs.status).toBe(200);
    for (const [method, path, payload] of [
      ["GET", "/v1/api-keys", undefined],
      ["POST", "/v1/api-keys", { name: "x", role: "admin" }],
      ["DELETE", `/v1/api-keys/${body.id}`, undefined],
    ] as const) {
      const denied = await call(gateway, method, path, { key: body.key, body: payload });
      expect(denied.status, `${method} ${path}`).toBe(403);
      expect(denied.body.error.code).toBe("insufficient_scope");
    }
  });

  it("revoking a key takes effect at once, even after it was cached", async () => {
    const { body } = await createKey({ name: "short-lived", role: "service" });
    expect((await chatWith(body.key)).status).toBe(200);
    const revoked = await call(gateway, "DELETE", `/v1/api-keys/${body.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ id: body.id, object: "api_key", deleted: true });
    const after = await chatWith(body.key);
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe("invalid_api_key");
    // Revoking again is idempotent and keeps the first revocation time.
    const listed = await call(gateway, "GET", "/v1/api-keys");
    const revokedAt = listed.body.data.find((key: { id: string }) => key.id === body.id).revoked_at;
    expect(revokedAt).toMatch(/Z$/);
    const again = await call(gateway, "DELETE", `/v1/api-keys/${body.id}`);
    expect(again.status).toBe(200);
    const relisted = await call(gateway, "GET", "/v1/api-keys");
    expect(relisted.body.data.find((key: { id: string }) => key.id === body.id).revoked_at).toBe(revokedAt);
    const unknown = await call(gateway, "DELETE", "/v1/api-keys/0b7d3c1e-8f0a-4c2b-9d4e-5f6a7b8c9d0e");
    expect(unknown.status).toBe(404);
  });

  it("an update that changes nothing answers the key as it is", async () => {
    const created = await call(gateway, "POST", "/v1/api-keys", { body: { name: "unchanged", role: "service" } });
    const updated = await call(gateway, "PATCH", `/v1/api-keys/${created.body.id}`, { body: {} });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({ id: created.body.id, name: "unchanged" });
  });

  it("admin bodies are strict and name the bad field", async () => {
    const unknownField = await createKey({ name: "x", role: "admin", colour: "blue" });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.error.code).toBe("invalid_request");
    const badRole = await createKey({ name: "x", role: "root" });
    expect(badRole.status).toBe(400);
    expect(badRole.body.error.param).toBe("role");
    const noName = await createKey({ role: "admin" });
    expect(noName.status).toBe(400);
    expect(noName.body.error.param).toBe("name");
    const badId = await call(gateway, "DELETE", "/v1/api-keys/not-a-uuid");
    expect(badId.status).toBe(400);
    expect(badId.body.error.param).toBe("id");
  });

  it("keys of another workspace cannot see or revoke this workspace's keys", async () => {
    const otherWorkspace = "7b0e7f43-55c5-4bde-9a52-4c1f1f2d9a10";
    const foreignAdmin = await createKey({ name: "other admin", role: "admin", workspace_id: otherWorkspace });
    expect(foreignAdmin.status).toBe(201);
    expect(foreignAdmin.body.workspace_id).toBe(otherWorkspace);
    const local = await createKey({ name: "local", role: "service" });

    const theirList = await call(gateway, "GET", "/v1/api-keys", { key: foreignAdmin.body.key });
    expect(theirList.status).toBe(200);
    expect(theirList.body.data.map((key: { id: string }) => key.id)).not.toContain(local.body.id);
    const theirDelete = await call(gateway, "DELETE", `/v1/api-keys/${local.body.id}`, { key: foreignAdmin.body.key });
    expect(theirDelete.status).toBe(404);
    expect((await chatWith(local.body.key)).status).toBe(200);

    // A workspace admin that is not an organisation admin cannot reach into another workspace.
    const intoDefault = await call(gateway, "POST", "/v1/api-keys", {
      key: foreignAdmin.body.key,
      body: { name: "sneaky", role: "admin", workspace_id: "00000000-0000-4000-8000-000000000002" },
    });
    expect(intoDefault.status).toBe(403);
  });
});
