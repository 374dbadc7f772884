import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes, randomUUID } from "node:crypto";
import { DEFAULT_WORKSPACE_ID, OPERATOR_KEY_ID } from "../src/control-plane/auth-context.ts";
import { hashGatewayKey } from "../src/control-plane/gateway-key-service.ts";
import { MASKED_SECRET } from "../src/crypto/sealed-secret.ts";
import { call, startGateway, type RunningGateway } from "./support/harness.ts";

/**
 * The audit log through real HTTP: every control-plane write records one event with the masked
 * views before and after it, readable by admin keys of the workspace only, filtered and paged;
 * a write that fails records none, and no event ever holds a secret.
 */

let gateway: RunningGateway;
/** Every secret handed to the gateway or answered by it in this file. */
const secrets: string[] = [];
const secret = (prefix: string) => {
  const value = `${prefix}${randomBytes(12).toString("hex")}`;
  secrets.push(value);
  return value;
};

beforeAll(async () => {
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
});

interface AuditEvent {
  id: string;
  action: string;
  resource_type: string;
  resource_id: string;
  resource_slug: string | null;
  actor_key_id: string;
  workspace_id: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  request_id: string | null;
  created_at: string;
}

/** Every event of the caller's workspace (all pages), newest first. */
async function allEvents(query = "", key?: string): Promise<AuditEvent[]> {
  const events: AuditEvent[] = [];
  let cursor: string | null = null;
  do {
    const page = await call(gateway, "GET", `/v1/audit-events?limit=200${query}${cursor ? `&cursor=${cursor}` : ""}`, { key });
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    events.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return events;
}

async function ok(method: string, path: string, body?: unknown, status = method === "POST" && !path.includes("/publish") && !path.endsWith("/rotate") ? 201 : 200) {
  const answer = await call(gateway, method, path, { body });
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(status);
  return answer.body;
}

/** The events about one resource, oldest first. */
async function eventsOf(resourceId: string): Promise<AuditEvent[]> {
  return (await allEvents(`&resource_id=${encodeURIComponent(resourceId)}`)).reverse();
}

describe("audit events", () => {
  it("records each change of a gateway key with the views before and after, never a secret", async () => {
    const created = await ok("POST", "/v1/api-keys", { name: "audited", role: "service" });
    secrets.push(created.key);
    const renamed = await ok("PATCH", `/v1/api-keys/${created.id}`, { name: "audited renamed" });
    const rotated = await ok("POST", `/v1/api-keys/${created.id}/rotate`, { grace_period_seconds: 60 });
    secrets.push(rotated.key);
    await ok("DELETE", `/v1/api-keys/${created.id}`);

    const events = await eventsOf(created.id);
    expect(events.map((event) => event.action)).toEqual(["api_key.created", "api_key.updated", "api_key.rotated", "api_key.revoked"]);
    const { key: _createdSecret, ...createdView } = created;
    expect(events[0]).toMatchObject({ resource_type: "api_key", resource_slug: null, actor_key_id: OPERATOR_KEY_ID, workspace_id: DEFAULT_WORKSPACE_ID, before: null, after: createdView });
    expect(events[1]?.before).toEqual(createdView);
    expect(events[1]?.after).toMatchObject({ name: "audited renamed", key_prefix: created.key_prefix });
    expect(events[1]?.after).toEqual(Object.fromEntries(Object.entries(renamed).filter(([name]) => name in createdView)));
    expect(events[2]?.before).toMatchObject({ key_prefix: created.key_prefix, previous_key_expires_at: null });
    expect(events[2]?.after).toMatchObject({ key_prefix: rotated.key_prefix, previous_key_expires_at: rotated.previous_key_expires_at });
    expect(events[3]).toMatchObject({ before: { revoked_at: null }, after: { revoked_at: expect.any(String) } });
    for (const event of events) {
      expect(Date.parse(event.created_at)).toBeGreaterThan(Date.now() - 60_000);
      expect(event.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    const text = JSON.stringify(events);
    for (const value of [created.key, rotated.key]) {
      expect(text).not.toContain(value);
      expect(text).not.toContain(hashGatewayKey(value));
    }
  });

  it("records virtual keys, configs, prompts and guardrails, with their secrets masked as GET shows them", async () => {
    const vk = await ok("POST", "/v1/virtual-keys", { name: "audited vk", provider: "openai", key: secret("sk-audit-vk-") });
    await ok("PUT", `/v1/virtual-keys/${vk.slug}`, { name: "audited vk 2", key: secret("sk-audit-vk-new-") });
    const vkNow = await ok("GET", `/v1/virtual-keys/${vk.slug}`);
    await ok("DELETE", `/v1/virtual-keys/${vk.slug}`);

    const config = await ok("POST", "/v1/configs", { name: "audited config", config: { provider: "openai", api_key: secret("sk-audit-config-") } });
    await ok("PUT", `/v1/configs/${config.slug}`, { config: { provider: "anthropic", api_key: secret("sk-audit-config-new-") } });
    const configNow = await ok("GET", `/v1/configs/${config.slug}`);
    await ok("DELETE", `/v1/configs/${config.slug}`);

    const prompt = await ok("POST", "/v1/prompts", { name: "audited prompt", provider: "openai", model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi {{name}}" }] });
    await ok("PUT", `/v1/prompts/${prompt.id}`, { model: "gpt-4o" });
    await ok("POST", `/v1/prompts/${prompt.id}/publish`, { version: 2 });
    await ok("DELETE", `/v1/prompts/${prompt.id}`);

    const header = `Bearer ${secret("hook-audit-")}`;
    const guardrail = await ok("POST", "/v1/guardrails", { name: "audited guardrail", checks: [{ type: "webhook", params: { url: "http://127.0.0.1:9/check", headers: { authorization: header } } }] });
    await ok("PUT", `/v1/guardrails/${guardrail.slug}`, { action: { deny: true } });
    const guardrailNow = await ok("GET", `/v1/guardrails/${guardrail.slug}`);
    await ok("DELETE", `/v1/guardrails/${guardrail.slug}`);

    const vkEvents = await eventsOf(vk.id);
    expect(vkEvents.map((event) => event.action)).toEqual(["virtual_key.created", "virtual_key.updated", "virtual_key.deleted"]);
    expect(vkEvents[0]).toMatchObject({ resource_type: "virtual_key", resource_slug: vk.slug, before: null, after: vk });
    expect(vkEvents[1]).toMatchObject({ before: vk, after: vkNow });
    expect(vkEvents[2]).toMatchObject({ before: vkNow, after: null });

    const configEvents = await eventsOf(config.id);
    expect(configEvents.map((event) => event.action)).toEqual(["config.created", "config.updated", "config.deleted"]);
    expect(configEvents[1]?.after).toEqual(configNow);
    expect(configEvents[2]).toMatchObject({ resource_slug: config.slug, before: configNow, after: null });
    expect(configEvents[0]?.after?.config).toContain(`"api_key":"${MASKED_SECRET}"`);
    expect(configEvents[1]?.before?.config).toContain('"provider":"openai"');

    const promptEvents = await eventsOf(prompt.id);
    expect(promptEvents.map((event) => event.action)).toEqual(["prompt.created", "prompt.updated", "prompt.published", "prompt.deleted"]);
    expect(promptEvents[0]?.after).toEqual(prompt);
    expect(promptEvents[2]).toMatchObject({ before: { default_version: 1, model: "gpt-4o-mini" }, after: { default_version: 2, model: "gpt-4o" } });

    const guardrailEvents = await eventsOf(guardrail.id);
    expect(guardrailEvents.map((event) => event.action)).toEqual(["guardrail.created", "guardrail.updated", "guardrail.deleted"]);
    expect(guardrailEvents[0]?.after).toEqual(guardrail);
    expect(guardrailEvents[1]).toMatchObject({ before: { action: { deny: false } }, after: guardrailNow });

    const text = JSON.stringify(await allEvents());
    for (const value of secrets) expect(text).not.toContain(value);
    // The views themselves are the masked ones (the GETs above answered these very objects).
    expect(vkEvents[1]?.after?.masked_key).toMatch(/^\*{4}/);
    expect(JSON.stringify(guardrailEvents[0]?.after)).toContain(MASKED_SECRET);
  });

  it("records the caller's request id and the acting key, and a write that changes nothing records nothing", async () => {
    const admin = await ok("POST", "/v1/api-keys", { name: "second admin", role: "admin" });
    secrets.push(admin.key);
    const config = await call(gateway, "POST", "/v1/configs", { key: admin.key, headers: { "x-gateway-trace-id": "trace-audit-1" }, body: { name: "by second admin", config: { provider: "openai" } } });
    expect(config.status).toBe(201);
    const byActor = await allEvents(`&actor_key_id=${admin.id}`);
    expect(byActor).toHaveLength(1);
    expect(byActor[0]).toMatchObject({ action: "config.created", resource_id: config.body.id, request_id: "trace-audit-1", actor_key_id: admin.id });

    const before = (await allEvents()).length;
    await ok("PATCH", `/v1/api-keys/${admin.id}`, { name: "second admin" });
    expect((await allEvents()).length).toBe(before);
  });

  it("a change that fails (400, 404) records no event", async () => {
    const before = await allEvents();
    const failures: [string, string, unknown, number][] = [
      ["POST", "/v1/api-keys", { name: "past", role: "service", expires_at: "2001-01-01T00:00:00Z" }, 400],
      ["PATCH", `/v1/api-keys/${randomUUID()}`, { name: "nobody" }, 404],
      ["POST", `/v1/api-keys/${randomUUID()}/rotate`, { grace_period_seconds: 0 }, 404],
      ["POST", `/v1/api-keys/${randomUUID()}/rotate`, { grace_period_seconds: 31 * 24 * 3600 }, 400],
      ["DELETE", `/v1/api-keys/${randomUUID()}`, undefined, 404],
      ["POST", "/v1/virtual-keys", { name: "bad", provider: "no-such-provider", key: "sk-x" }, 400],
      ["PUT", "/v1/virtual-keys/vk-missing", { name: "x" }, 404],
      ["DELETE", "/v1/configs/pc-missing", undefined, 404],
      ["PUT", "/v1/configs/pc-missing", { name: "x" }, 404],
      ["POST", "/v1/prompts", { name: "bad", model: "m", messages: [{ role: "user", content: "hi" }] }, 400],
      ["POST", `/v1/prompts/${randomUUID()}/publish`, { version: 1 }, 404],
      ["DELETE", "/v1/guardrails/pg-missing", undefined, 404],
    ];
    for (const [method, path, body, status] of failures) {
      const answer = await call(gateway, method, path, { body });
      expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(status);
    }
    const revoked = await ok("POST", "/v1/api-keys", { name: "to revoke", role: "service" });
    secrets.push(revoked.key);
    await ok("DELETE", `/v1/api-keys/${revoked.id}`);
    const rotateRevoked = await call(gateway, "POST", `/v1/api-keys/${revoked.id}/rotate`, { body: {} });
    expect(rotateRevoked.status).toBe(400);
    const again = await call(gateway, "DELETE", `/v1/api-keys/${revoked.id}`);
    expect(again.status).toBe(200);
    const after = await allEvents();
    expect(after.length).toBe(before.length + 2);
    expect(after.slice(0, 2).map((event) => event.action)).toEqual(["api_key.revoked", "api_key.created"]);
  });

  it("filters by action, resource type and time, pages by cursor, and refuses a bad range or cursor", async () => {
    const all = await allEvents();
    expect(all.length).toBeGreaterThan(10);
    const rotated = await allEvents("&action=api_key.rotated");
    expect(rotated.length).toBeGreaterThan(0);
    expect(rotated.every((event) => event.action === "api_key.rotated")).toBe(true);
    const prompts = await allEvents("&resource_type=prompt");
    expect(prompts.map((event) => event.id)).toEqual(all.filter((event) => event.resource_type === "prompt").map((event) => event.id));

    const paged: AuditEvent[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await call(gateway, "GET", `/v1/audit-events?limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.body.data.length).toBeLessThanOrEqual(3);
      paged.push(...page.body.data);
      cursor = page.body.next_cursor;
      expect(page.body.has_more).toBe(cursor !== null);
      pages += 1;
    } while (cursor);
    expect(pages).toBe(Math.ceil(all.length / 3));
    expect(paged.map((event) => event.id)).toEqual(all.map((event) => event.id));
    const ids = all.map((event) => event.id);
    expect([...ids].sort().reverse()).toEqual(ids);

    const middle = all[Math.floor(all.length / 2)]!;
    const from = encodeURIComponent(middle.created_at);
    const since = await allEvents(`&from=${from}`);
    expect(since.every((event) => event.created_at >= middle.created_at)).toBe(true);
    expect(since.map((event) => event.id)).toContain(middle.id);
    const until = await allEvents(`&to=${from}`);
    expect(until.every((event) => event.created_at < middle.created_at)).toBe(true);
    expect(since.length + until.length).toBe(all.length);

    const backwards = await call(gateway, "GET", `/v1/audit-events?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z`);
    expect(backwards.status).toBe(400);
    expect(backwards.body.error).toMatchObject({ code: "invalid_request", param: "from" });
    const badCursor = await call(gateway, "GET", "/v1/audit-events?cursor=nonsense");
    expect(badCursor.status).toBe(400);
    const badAction = await call(gateway, "GET", "/v1/audit-events?action=api_key.exploded");
    expect(badAction.status).toBe(400);
  });

  it("is for admin keys of the workspace: a service key gets 403, another workspace sees none of it", async () => {
    const service = await ok("POST", "/v1/api-keys", { name: "reader", role: "service" });
    secrets.push(service.key);
    const denied = await call(gateway, "GET", "/v1/audit-events", { key: service.key });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe("insufficient_scope");
    expect((await call(gateway, "GET", "/v1/audit-events", { key: null })).status).toBe(401);

    const otherWorkspace = randomUUID();
    const other = await ok("POST", "/v1/api-keys", { name: "other admin", role: "admin", workspace_id: otherWorkspace });
    secrets.push(other.key);
    const mine = await allEvents();
    const theirs = await allEvents("", other.key);
    expect(theirs.map((event) => event.action)).toEqual(["api_key.created"]);
    expect(theirs[0]).toMatchObject({ resource_id: other.id, workspace_id: otherWorkspace });
    expect(mine.map((event) => event.id)).not.toContain(theirs[0]!.id);
    const theirIds = new Set(theirs.map((event) => event.id));
    expect(mine.some((event) => theirIds.has(event.id))).toBe(false);
    const asked = await call(gateway, "GET", `/v1/audit-events?workspace_id=${DEFAULT_WORKSPACE_ID}`, { key: other.key });
    expect(asked.status).toBe(403);
    // An organisation admin (the operator's key) may read another workspace's log.
    expect((await allEvents(`&workspace_id=${otherWorkspace}`)).map((event) => event.id)).toEqual([...theirIds]);

    const text = JSON.stringify([...mine, ...theirs]);
    for (const value of secrets) expect(text).not.toContain(value);
  });
});
