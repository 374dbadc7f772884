import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LLMock } from "@copilotkit/aimock";
import { randomUUID } from "node:crypto";
import { DEFAULT_ORGANISATION_ID, DEFAULT_WORKSPACE_ID, OPERATOR_KEY_ID } from "../src/control-plane/auth-context.ts";
import { gatewayContractProblems } from "./support/contract.ts";
import { call, freePort, startGateway, type RunningGateway } from "./support/harness.ts";

/** The admin routes of virtual keys: /v1/virtual-keys and /v1/virtual-keys/{slug}. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const VK_SLUG = /^vk-[a-z0-9]+(-[a-z0-9]+)*-[0-9a-f]{8}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const VK_KEYS = [
  "id",
  "object",
  "slug",
  "name",
  "provider",
  "masked_key",
  "fields",
  "upstream_organization",
  "upstream_project",
  "custom_host",
  "budget",
  "rate_limit",
  "organisation_id",
  "workspace_id",
  "owner_id",
  "updated_by",
  "created_at",
  "updated_at",
].sort();

const FIRST_SECRET = "sk-first-upstream-secret-AAAA1111";
const ROTATED_SECRET = "sk-rotated-upstream-secret-BBBB2222";

let gateway: RunningGateway;
/** Accepts only ROTATED_SECRET, so a 200 proves which stored key reached it. */
let guarded: LLMock;

beforeAll(async () => {
  guarded = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent", auth: { apiKeys: [ROTATED_SECRET] } });
  guarded.onMessage("hello", { content: "Hello from the stored key" });
  await guarded.start();
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await guarded?.stop();
});

/** The response conforms to the document's schema for the operation and status. */
function expectContract(operationId: string, response: { status: number; body: unknown }): void {
  expect(gatewayContractProblems(operationId, response.status, response.body), operationId).toEqual([]);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every response body seen by the tests: none may hold an upstream secret. */
const seenBodies: string[] = [];

async function send(method: string, path: string, options: { body?: unknown; key?: string } = {}) {
  const response = await call(gateway, method, path, options);
  seenBodies.push(JSON.stringify(response.body));
  return response;
}

async function createKey(body: Record<string, unknown>, key?: string): Promise<any> {
  const created = await send("POST", "/v1/virtual-keys", { body, key });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

/** A chat request whose provider, upstream and credential come from the virtual key alone. */
async function chatThrough(slug: string) {
  const response = await call(gateway, "POST", "/v1/chat/completions", {
    body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] },
    headers: { "x-gateway-virtual-key": slug },
  });
  seenBodies.push(JSON.stringify(response.body));
  return response;
}

describe("virtual keys: create, read, list", () => {
  it("creates a virtual key and shows its secret only masked", async () => {
    const created = await send("POST", "/v1/virtual-keys", {
      body: {
        name: "Team OpenAI",
        provider: "openai",
        key: FIRST_SECRET,
        upstream_organization: "org-team",
        upstream_project: "proj_team",
        budget: { credit_limit_usd: 25.5, period: "monthly" },
        rate_limit: { requests_per_minute: 60 },
      },
    });
    expect(created.status).toBe(201);
    expectContract("createVirtualKey", created);
    const body = created.body;
    expect(Object.keys(body).sort()).toEqual(VK_KEYS);
    expect(body).toMatchObject({
      object: "virtual_key",
      name: "Team OpenAI",
      provider: "openai",
      masked_key: "****1111",
      upstream_organization: "org-team",
      upstream_project: "proj_team",
      custom_host: null,
      budget: { credit_limit_usd: 25.5, period: "monthly" },
      rate_limit: { requests_per_minute: 60 },
      organisation_id: DEFAULT_ORGANISATION_ID,
      workspace_id: DEFAULT_WORKSPACE_ID,
      owner_id: OPERATOR_KEY_ID,
      updated_by: OPERATOR_KEY_ID,
    });
    expect(body.id).toMatch(UUID);
    expect(body.slug).toMatch(VK_SLUG);
    expect(body.slug).toMatch(/^vk-team-openai-[0-9a-f]{8}$/);
    expect(body.created_at).toMatch(TIMESTAMP);
    expect(body.updated_at).toBe(body.created_at);

    const got = await send("GET", `/v1/virtual-keys/${body.slug}`);
    expect(got.status).toBe(200);
    expectContract("getVirtualKey", got);
    // A read of one key shows its spend in the current (monthly, UTC) period.
    const now = new Date();
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    expect(got.body).toEqual({ ...body, spent_usd: 0, remaining_usd: 25.5, period_resets_at: nextMonth });
  });

  it("fills defaults: no optional fields gives nulls, a budget without period gives none", async () => {
    const body = await createKey({ name: "bare", provider: "OpenAI", key: FIRST_SECRET, budget: { credit_limit_usd: 10 } });
    expect(body).toMatchObject({
      provider: "openai",
      upstream_organization: null,
      upstream_project: null,
      custom_host: null,
      budget: { credit_limit_usd: 10, period: "none" },
      rate_limit: null,
    });
  });

  it("lists virtual keys newest first in a list envelope", async () => {
    const older = await createKey({ name: "older", provider: "groq", key: FIRST_SECRET });
    await sleep(5);
    const newer = await createKey({ name: "newer", provider: "mistral", key: FIRST_SECRET });
    const list = await send("GET", "/v1/virtual-keys");
    expect(list.status).toBe(200);
    expectContract("listVirtualKeys", list);
    expect(Object.keys(list.body).sort()).toEqual(["data", "object", "total"]);
    expect(list.body.object).toBe("list");
    expect(list.body.total).toBe(list.body.data.length);
    for (const record of list.body.data) expect(Object.keys(record).sort()).toEqual(VK_KEYS);
    const slugs: string[] = list.body.data.map((record: { slug: string }) => record.slug);
    expect(slugs.indexOf(newer.slug)).toBeGreaterThanOrEqual(0);
    expect(slugs.indexOf(newer.slug)).toBeLessThan(slugs.indexOf(older.slug));
    expect(list.body.data.find((record: { slug: string }) => record.slug === older.slug)).toEqual(older);
  });

  it("answers 404 for a slug that does not exist", async () => {
    for (const [method, path, body] of [
      ["GET", "/v1/virtual-keys/vk-missing-00000000", undefined],
      ["PUT", "/v1/virtual-keys/vk-missing-00000000", { name: "x" }],
      ["PUT", "/v1/virtual-keys/vk-missing-00000000", { custom_host: null }],
      ["DELETE", "/v1/virtual-keys/vk-missing-00000000", undefined],
    ] as const) {
      const response = await send(method, path, { body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.error).toMatchObject({ code: "not_found", param: "slug" });
    }
  });
});

describe("virtual keys: update and delete", () => {
  it("updates fields, clears nullable ones with null and keeps the rest", async () => {
    const created = await createKey({
      name: "to update",
      provider: "openai",
      key: FIRST_SECRET,
      upstream_organization: "org-1",
      upstream_project: "proj_1",
      budget: { credit_limit_usd: 5, period: "weekly" },
      rate_limit: { requests_per_minute: 10, tokens_per_minute: 1000 },
    });
    await sleep(5);
    const updated = await send("PUT", `/v1/virtual-keys/${created.slug}`, {
      body: { name: "updated", upstream_organization: null, budget: null, rate_limit: { tokens_per_minute: 500 } },
    });
    expect(updated.status).toBe(200);
    expectContract("updateVirtualKey", updated);
    expect(Object.keys(updated.body).sort()).toEqual(VK_KEYS);
    expect(updated.body).toMatchObject({
      id: created.id,
      slug: created.slug,
      name: "updated",
      provider: "openai",
      masked_key: created.masked_key,
      upstream_organization: null,
      upstream_project: "proj_1",
      budget: null,
      rate_limit: { tokens_per_minute: 500 },
      created_at: created.created_at,
    });
    expect(updated.body.updated_at > created.updated_at).toBe(true);
    expect((await send("GET", `/v1/virtual-keys/${created.slug}`)).body).toEqual(updated.body);
  });

  it("rotates the secret with key, and the request path uses the new one at once", async () => {
    const created = await createKey({ name: "rotating", provider: "openai", key: FIRST_SECRET, custom_host: `${guarded.url}/v1` });
    expect(created.custom_host).toBe(`${guarded.url}/v1`);
    // The guarded upstream refuses the first secret; the lookup is now cached.
    const refused = await chatThrough(created.slug);
    expect(refused.status).toBe(401);

    const rotated = await send("PUT", `/v1/virtual-keys/${created.slug}`, { body: { key: ROTATED_SECRET } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.masked_key).toBe("****2222");
    const stored = await gateway.gateway.deps.store.virtualKeys.getBySlug(DEFAULT_WORKSPACE_ID, created.slug);
    expect(gateway.gateway.deps.secrets.open(stored!.encryptedKey)).toBe(ROTATED_SECRET);

    const accepted = await chatThrough(created.slug);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body.choices[0].message.content).toBe("Hello from the stored key");

    // A new custom host (which takes the key itself) is seen at once too: nothing listens on this port.
    const moved = await send("PUT", `/v1/virtual-keys/${created.slug}`, { body: { custom_host: `http://127.0.0.1:${await freePort()}/v1`, key: ROTATED_SECRET } });
    expect(moved.status).toBe(200);
    expect((await chatThrough(created.slug)).status).toBe(502);
  });

  it("deletes a virtual key, which stops working at once", async () => {
    const created = await createKey({ name: "doomed", provider: "openai", key: ROTATED_SECRET, custom_host: `${guarded.url}/v1` });
    expect((await chatThrough(created.slug)).status).toBe(200);
    const deleted = await send("DELETE", `/v1/virtual-keys/${created.slug}`);
    expect(deleted.status).toBe(200);
    expectContract("deleteVirtualKey", deleted);
    expect(deleted.body).toEqual({ id: created.slug, object: "virtual_key", deleted: true });
    const after = await chatThrough(created.slug);
    expect(after.status).toBe(400);
    expect(after.body.error.code).toBe("unknown_provider");
    expect((await send("GET", `/v1/virtual-keys/${created.slug}`)).status).toBe(404);
    expect((await send("DELETE", `/v1/virtual-keys/${created.slug}`)).status).toBe(404);
    const list = await send("GET", "/v1/virtual-keys");
    expect(list.body.data.map((record: { slug: string }) => record.slug)).not.toContain(created.slug);
    expect(await gateway.gateway.deps.store.virtualKeys.getBySlug(DEFAULT_WORKSPACE_ID, created.slug)).toBeUndefined();
  });
});

describe("virtual keys: the upstream secret", () => {
  it("never appears in a response, and is stored only encrypted", async () => {
    const secret = `sk-never-shown-${randomUUID()}`;
    const created = await createKey({ name: "secretive", provider: "openai", key: secret });
    expect(created.masked_key).toBe(`****${secret.slice(-4)}`);
    const bodies = [
      JSON.stringify(created),
      JSON.stringify((await send("GET", "/v1/virtual-keys")).body),
      JSON.stringify((await send("GET", `/v1/virtual-keys/${created.slug}`)).body),
      JSON.stringify((await send("PUT", `/v1/virtual-keys/${created.slug}`, { body: { name: "secretive 2" } })).body),
    ];
    for (const body of bodies) expect(body).not.toContain(secret);

    const stored = await gateway.gateway.deps.store.virtualKeys.getBySlug(DEFAULT_WORKSPACE_ID, created.slug);
    expect(stored).toBeDefined();
    expect(stored!.encryptedKey).not.toContain(secret);
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(stored!.keyHint).toBe(secret.slice(-4));
    expect(gateway.gateway.deps.secrets.open(stored!.encryptedKey)).toBe(secret);

    const rotatedSecret = `sk-rotated-never-shown-${randomUUID()}`;
    const rotated = await send("PUT", `/v1/virtual-keys/${created.slug}`, { body: { key: rotatedSecret } });
    expect(JSON.stringify(rotated.body)).not.toContain(rotatedSecret);
    const restored = await gateway.gateway.deps.store.virtualKeys.getBySlug(DEFAULT_WORKSPACE_ID, created.slug);
    expect(restored!.encryptedKey).not.toContain(rotatedSecret);
    expect(gateway.gateway.deps.secrets.open(restored!.encryptedKey)).toBe(rotatedSecret);
  });

  it("shows no hint at all of a very short key", async () => {
    const created = await createKey({ name: "short", provider: "openai", key: "abc12" });
    expect(created.masked_key).toBe("****");
  });

  it("no earlier response of this file held a secret", () => {
    expect(seenBodies.length).toBeGreaterThan(10);
    for (const body of seenBodies) {
      expect(body).not.toContain(FIRST_SECRET);
      expect(body).not.toContain(ROTATED_SECRET);
    }
  });
});

describe("virtual keys: bad bodies", () => {
  let slug: string;

  beforeAll(async () => {
    slug = (await createKey({ name: "target of bad updates", provider: "openai", key: FIRST_SECRET })).slug;
  });

  const valid = { name: "x", provider: "openai", key: FIRST_SECRET };
  const createCases: Array<{ what: string; body: unknown; param: string; code?: string; message?: RegExp }> = [
    { what: "missing name", body: { provider: "openai", key: FIRST_SECRET }, param: "name" },
    { what: "missing provider", body: { name: "x", key: FIRST_SECRET }, param: "provider" },
    { what: "missing key", body: { name: "x", provider: "openai" }, param: "key" },
    { what: "key of the wrong type", body: { ...valid, key: 1234 }, param: "key" },
    { what: "unknown provider", body: { ...valid, provider: "nope-ai" }, param: "provider", code: "unknown_provider" },
    { what: "bad budget period", body: { ...valid, budget: { credit_limit_usd: 5, period: "yearly" } }, param: "budget.period" },
    { what: "budget without a limit", body: { ...valid, budget: { period: "weekly" } }, param: "budget.credit_limit_usd" },
    { what: "non-positive budget", body: { ...valid, budget: { credit_limit_usd: 0 } }, param: "budget.credit_limit_usd" },
    { what: "vanishing budget", body: { ...valid, budget: { credit_limit_usd: 1e-320 } }, param: "budget.credit_limit_usd" },
    { what: "fractional rate limit", body: { ...valid, rate_limit: { requests_per_minute: 1.5 } }, param: "rate_limit.requests_per_minute" },
    { what: "refused custom host", body: { ...valid, custom_host: "http://169.254.169.254/latest" }, param: "custom_host", code: "forbidden_custom_host" },
    { what: "custom host that is not a URL", body: { ...valid, custom_host: "not a url" }, param: "custom_host", message: /^custom_host must be an absolute/ },
    { what: "custom host with credentials", body: { ...valid, custom_host: "http://user:pw@127.0.0.1/v1" }, param: "custom_host", code: "forbidden_custom_host", message: /^custom_host must not contain/ },
    { what: "custom host of another scheme", body: { ...valid, custom_host: "ftp://127.0.0.1/v1" }, param: "custom_host", code: "forbidden_custom_host", message: /^custom_host must use http/ },
    { what: "a provider that needs a custom host without one", body: { ...valid, provider: "openai-compatible" }, param: "custom_host" },
  ];

  for (const { what, body, param, code, message } of createCases) {
    it(`POST refuses ${what}`, async () => {
      const response = await send("POST", "/v1/virtual-keys", { body });
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expectContract("createVirtualKey", response);
      expect(response.body.error.param).toBe(param);
      expect(response.body.error.code).toBe(code ?? "invalid_request");
      // A body field is named as such, never as the request header of the same purpose.
      expect(response.body.error.message).not.toContain("x-gateway-custom-host");
      if (message) expect(response.body.error.message).toMatch(message);
    });
  }

  // `budget` and `rate_limit` may be null; a bad key inside them is still named exactly.
  const updateCases: Array<{ what: string; body: unknown; param: string | RegExp; code?: string; message?: RegExp }> = [
    { what: "an empty body", body: {}, param: "body" },
    { what: "bad budget period", body: { budget: { credit_limit_usd: 5, period: "yearly" } }, param: "budget.period" },
    { what: "empty key", body: { key: "" }, param: "key" },
    { what: "an empty organization", body: { upstream_organization: "" }, param: "upstream_organization" },
    { what: "a refused custom host", body: { custom_host: "http://10.1.2.3/v1" }, param: "custom_host", code: "forbidden_custom_host" },
    { what: "a custom host that is not a URL", body: { custom_host: "not a url" }, param: "custom_host", message: /^custom_host must be an absolute/ },
    { what: "a custom host with credentials", body: { custom_host: "http://user:pw@127.0.0.1/v1" }, param: "custom_host", code: "forbidden_custom_host", message: /^custom_host must not contain/ },
    { what: "rate limit of the wrong type", body: { rate_limit: { tokens_per_minute: "many" } }, param: "rate_limit.tokens_per_minute" },
  ];

  for (const { what, body, param, code, message } of updateCases) {
    it(`PUT refuses ${what} and changes nothing`, async () => {
      const before = await send("GET", `/v1/virtual-keys/${slug}`);
      const response = await send("PUT", `/v1/virtual-keys/${slug}`, { body });
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      if (typeof param === "string") expect(response.body.error.param).toBe(param);
      else expect(response.body.error.param).toMatch(param);
      expect(response.body.error.code).toBe(code ?? "invalid_request");
      expect(response.body.error.message).not.toContain("x-gateway-custom-host");
      if (message) expect(response.body.error.message).toMatch(message);
      expect((await send("GET", `/v1/virtual-keys/${slug}`)).body).toEqual(before.body);
    });
  }

  it("refuses to clear the custom host of a provider that needs one", async () => {
    const created = await createKey({ name: "compatible", provider: "openai-compatible", key: FIRST_SECRET, custom_host: `${guarded.url}/v1` });
    const response = await send("PUT", `/v1/virtual-keys/${created.slug}`, { body: { custom_host: null } });
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe("custom_host");
  });
});

describe("virtual keys: access", () => {
  it("gives a service key 403 on every virtual key route", async () => {
    const service = await send("POST", "/v1/api-keys", { body: { name: "svc", role: "service" } });
    expect(service.status).toBe(201);
    const { slug } = await createKey({ name: "admin only", provider: "openai", key: FIRST_SECRET });
    for (const [method, path, body] of [
      ["POST", "/v1/virtual-keys", { name: "x", provider: "openai", key: FIRST_SECRET }],
      ["GET", "/v1/virtual-keys", undefined],
      ["GET", `/v1/virtual-keys/${slug}`, undefined],
      ["PUT", `/v1/virtual-keys/${slug}`, { name: "y" }],
      ["DELETE", `/v1/virtual-keys/${slug}`, undefined],
    ] as const) {
      const denied = await send(method, path, { key: service.body.key, body });
      expect(denied.status, `${method} ${path}`).toBe(403);
      expect(denied.body.error.code).toBe("insufficient_scope");
    }
    expect((await send("GET", `/v1/virtual-keys/${slug}`)).body.name).toBe("admin only");
  });

  it("keeps each workspace's virtual keys to itself", async () => {
    const mine = await createKey({ name: "workspace one", provider: "openai", key: ROTATED_SECRET, custom_host: `${guarded.url}/v1` });
    const workspaceId = randomUUID();
    const other = await send("POST", "/v1/api-keys", { body: { name: "other admin", role: "admin", workspace_id: workspaceId } });
    expect(other.status).toBe(201);
    const otherKey: string = other.body.key;

    const listed = await send("GET", "/v1/virtual-keys", { key: otherKey });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((record: { slug: string }) => record.slug)).not.toContain(mine.slug);
    for (const [method, path, body] of [
      ["GET", `/v1/virtual-keys/${mine.slug}`, undefined],
      ["PUT", `/v1/virtual-keys/${mine.slug}`, { name: "taken over" }],
      ["PUT", `/v1/virtual-keys/${mine.slug}`, { custom_host: null }],
      ["DELETE", `/v1/virtual-keys/${mine.slug}`, undefined],
    ] as const) {
      const response = await send(method, path, { key: otherKey, body });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    // Nor can the other workspace send requests through it.
    const borrowed = await call(gateway, "POST", "/v1/chat/completions", {
      key: otherKey,
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] },
      headers: { "x-gateway-virtual-key": mine.slug },
    });
    expect(borrowed.status).toBe(400);

    const theirs = await createKey({ name: "workspace two", provider: "groq", key: FIRST_SECRET }, otherKey);
    expect(theirs.workspace_id).toBe(workspaceId);
    expect(theirs.owner_id).toBe(other.body.id);
    expect((await send("GET", `/v1/virtual-keys/${theirs.slug}`)).status).toBe(404);

    const untouched = await send("GET", `/v1/virtual-keys/${mine.slug}`);
    expect(untouched.body).toEqual(mine);
  });
});
