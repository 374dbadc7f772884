import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { randomUUID } from "node:crypto";
import { DEFAULT_ORGANISATION_ID, DEFAULT_WORKSPACE_ID, OPERATOR_KEY_ID } from "../src/control-plane/auth-context.ts";
import { gatewayContractProblems } from "./support/contract.ts";
import { call, freePort, startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";

/** The admin routes of configs: /v1/configs, /v1/configs/{slug}, /v1/configs/{slug}/versions. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CONFIG_SLUG = /^pc-[a-z0-9]+(-[a-z0-9]+)*-[0-9a-f]{8}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const VERSION_KEYS = [
  "id",
  "name",
  "workspace_id",
  "slug",
  "organisation_id",
  "is_default",
  "status",
  "owner_id",
  "updated_by",
  "created_at",
  "last_updated_at",
  "config",
  "format",
  "type",
  "version_id",
  "object",
].sort();

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

/** The response conforms to the document's schema for the operation and status. */
function expectContract(operationId: string, response: { status: number; body: unknown }): void {
  expect(gatewayContractProblems(operationId, response.status, response.body), operationId).toEqual([]);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function createConfig(body: unknown, key?: string): Promise<{ id: string; slug: string; version_id: string }> {
  const created = await call(gateway, "POST", "/v1/configs", { body, key });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

/** Every field of the specification's config version record, with its type and form. */
function expectVersionRecord(record: any, expected: { name: string; slug: string; config: unknown; isDefault?: 0 | 1 }): void {
  expect(Object.keys(record).sort()).toEqual(VERSION_KEYS);
  expect(record.id).toMatch(UUID);
  expect(record.name).toBe(expected.name);
  expect(record.workspace_id).toBe(DEFAULT_WORKSPACE_ID);
  expect(record.slug).toBe(expected.slug);
  expect(record.slug).toMatch(CONFIG_SLUG);
  expect(record.organisation_id).toBe(DEFAULT_ORGANISATION_ID);
  expect(record.is_default).toBe(expected.isDefault ?? 0);
  expect(Number.isInteger(record.is_default)).toBe(true);
  expect(record.status).toBe("active");
  expect(record.owner_id).toMatch(UUID);
  expect(record.updated_by).toMatch(UUID);
  expect(record.created_at).toMatch(TIMESTAMP);
  expect(record.last_updated_at).toMatch(TIMESTAMP);
  expect(typeof record.config).toBe("string");
  expect(JSON.parse(record.config)).toEqual(expected.config);
  expect(record.format).toBe("json");
  expect(record.type).toBe("ORG_CONFIG");
  expect(record.version_id).toMatch(UUID);
  expect(record.object).toBe("config");
}

describe("configs: create, read, list", () => {
  it("creates a config given as an object and returns exactly its ids", async () => {
    const config = { provider: "openai", input_guardrails: ["pg-block-words-1a2b3c4d"] };
    const created = await call(gateway, "POST", "/v1/configs", { body: { name: "Prod routing", config } });
    expect(created.status).toBe(201);
    expectContract("createConfig", created);
    expect(Object.keys(created.body).sort()).toEqual(["id", "slug", "version_id"]);
    expect(created.body.id).toMatch(UUID);
    expect(created.body.version_id).toMatch(UUID);
    expect(created.body.slug).toMatch(CONFIG_SLUG);
    expect(created.body.slug).toMatch(/^pc-prod-routing-[0-9a-f]{8}$/);

    const got = await call(gateway, "GET", `/v1/configs/${created.body.slug}`);
    expect(got.status).toBe(200);
    expectContract("getConfig", got);
    expectVersionRecord(got.body, { name: "Prod routing", slug: created.body.slug, config });
    expect(got.body.id).toBe(created.body.id);
    expect(got.body.version_id).toBe(created.body.version_id);
    expect(got.body.owner_id).toBe(OPERATOR_KEY_ID);
    expect(got.body.updated_by).toBe(OPERATOR_KEY_ID);
    expect(got.body.last_updated_at).toBe(got.body.created_at);
  });

  it("accepts the config as JSON text and stores the same object", async () => {
    const config = { provider: "groq", upstream_organization: "org-abc", input_guardrails: ["pg-pii-0badc0de"] };
    const created = await createConfig({ name: "as text", config: JSON.stringify(config) });
    const got = await call(gateway, "GET", `/v1/configs/${created.slug}`);
    expectVersionRecord(got.body, { name: "as text", slug: created.slug, config });
  });

  it("lists configs newest first, each at its latest version, in the list envelope", async () => {
    const older = await createConfig({ name: "older", config: { provider: "openai" } });
    await sleep(5);
    const newer = await createConfig({ name: "newer", config: { provider: "mistral" } });
    const updated = await call(gateway, "PUT", `/v1/configs/${older.slug}`, { body: { config: { provider: "deepseek" } } });
    expect(updated.status).toBe(200);

    const list = await call(gateway, "GET", "/v1/configs");
    expect(list.status).toBe(200);
    expectContract("listConfigs", list);
    expect(Object.keys(list.body).sort()).toEqual(["data", "object", "total"]);
    expect(list.body.object).toBe("list");
    expect(list.body.total).toBe(list.body.data.length);
    for (const record of list.body.data) expect(Object.keys(record).sort()).toEqual(VERSION_KEYS);
    const slugs: string[] = list.body.data.map((record: { slug: string }) => record.slug);
    expect(slugs.indexOf(newer.slug)).toBeGreaterThanOrEqual(0);
    expect(slugs.indexOf(newer.slug)).toBeLessThan(slugs.indexOf(older.slug));
    const olderListed = list.body.data.find((record: { slug: string }) => record.slug === older.slug);
    expectVersionRecord(olderListed, { name: "older", slug: older.slug, config: { provider: "deepseek" } });
    expect(olderListed.version_id).toBe(updated.body.version_id);
  });

  it("marks a default config with is_default 1", async () => {
    const created = await createConfig({ name: "default one", config: { provider: "openai" }, is_default: true });
    const got = await call(gateway, "GET", `/v1/configs/${created.slug}`);
    expectVersionRecord(got.body, { name: "default one", slug: created.slug, config: { provider: "openai" }, isDefault: 1 });
    const cleared = await call(gateway, "PUT", `/v1/configs/${created.slug}`, { body: { is_default: false } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.is_default).toBe(0);
  });

  it("seals an upstream api_key at rest and shows it masked", async () => {
    const secret = "sk-config-secret-9876543210";
    const config = { provider: "openai", api_key: secret, targets: [{ provider: "groq", api_key: `${secret}-target` }] };
    const created = await call(gateway, "POST", "/v1/configs", { body: { name: "with key", config } });
    expect(created.status).toBe(201);
    const got = await call(gateway, "GET", `/v1/configs/${created.body.slug}`);
    const versions = await call(gateway, "GET", `/v1/configs/${created.body.slug}/versions`);
    const list = await call(gateway, "GET", "/v1/configs");
    for (const response of [created, got, versions, list]) expect(JSON.stringify(response.body)).not.toContain(secret);
    expect(JSON.parse(got.body.config)).toEqual({ provider: "openai", api_key: "********", targets: [{ provider: "groq", api_key: "********" }] });
    const stored = await gateway.gateway.deps.store.configs.getBySlug(DEFAULT_WORKSPACE_ID, created.body.slug);
    expect(stored?.latest.config).not.toContain(secret);
  });

  it("answers 404 for a slug that does not exist", async () => {
    for (const [method, path, body] of [
      ["GET", "/v1/configs/pc-missing-00000000", undefined],
      ["PUT", "/v1/configs/pc-missing-00000000", { name: "x" }],
      ["DELETE", "/v1/configs/pc-missing-00000000", undefined],
      ["GET", "/v1/configs/pc-missing-00000000/versions", undefined],
    ] as const) {
      const response = await call(gateway, method, path, { body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.error).toMatchObject({ code: "not_found", param: "slug" });
    }
  });
});

describe("configs: versions", () => {
  it("makes a new version on every update, newest first, old versions still readable", async () => {
    const first = { provider: "openai", input_guardrails: ["pg-one-00000001"] };
    const second = { provider: "openai", input_guardrails: ["pg-one-00000001", "pg-two-00000002"] };
    const created = await createConfig({ name: "versioned", config: first });
    await sleep(5);
    const v2 = await call(gateway, "PUT", `/v1/configs/${created.slug}`, { body: { config: second } });
    expect(v2.status).toBe(200);
    expectContract("updateConfig", v2);
    expectVersionRecord(v2.body, { name: "versioned", slug: created.slug, config: second });
    await sleep(5);
    const v3 = await call(gateway, "PUT", `/v1/configs/${created.slug}`, { body: { name: "versioned, renamed" } });
    expect(v3.status).toBe(200);
    // A rename keeps the latest config body.
    expectVersionRecord(v3.body, { name: "versioned, renamed", slug: created.slug, config: second });

    const versionIds = [v3.body.version_id, v2.body.version_id, created.version_id];
    expect(new Set(versionIds).size).toBe(3);

    const versions = await call(gateway, "GET", `/v1/configs/${created.slug}/versions`);
    expect(versions.status).toBe(200);
    expectContract("listConfigVersions", versions);
    expect(Object.keys(versions.body).sort()).toEqual(["data", "object", "total"]);
    expect(versions.body.object).toBe("list");
    expect(versions.body.total).toBe(3);
    expect(versions.body.total).toBe(versions.body.data.length);
    expect(versions.body.data.map((version: { version_id: string }) => version.version_id)).toEqual(versionIds);
    const [newest, middle, oldest] = versions.body.data;
    expectVersionRecord(newest, { name: "versioned, renamed", slug: created.slug, config: second });
    expectVersionRecord(middle, { name: "versioned", slug: created.slug, config: second });
    expectVersionRecord(oldest, { name: "versioned", slug: created.slug, config: first });
    for (const version of versions.body.data) {
      expect(version.id).toBe(created.id);
      expect(version.created_at).toBe(oldest.created_at);
    }
    expect(newest.last_updated_at > oldest.last_updated_at).toBe(true);

    const latest = await call(gateway, "GET", `/v1/configs/${created.slug}`);
    expect(latest.body).toEqual(newest);
  });

  it("deletes a config and all its versions", async () => {
    const created = await createConfig({ name: "doomed", config: { provider: "openai" } });
    expect((await call(gateway, "PUT", `/v1/configs/${created.slug}`, { body: { name: "doomed v2" } })).status).toBe(200);
    const deleted = await call(gateway, "DELETE", `/v1/configs/${created.slug}`);
    expect(deleted.status).toBe(200);
    expectContract("deleteConfig", deleted);
    expect(deleted.body).toEqual({ id: created.slug, object: "config", deleted: true });
    expect((await call(gateway, "GET", `/v1/configs/${created.slug}`)).status).toBe(404);
    expect((await call(gateway, "GET", `/v1/configs/${created.slug}/versions`)).status).toBe(404);
    expect((await call(gateway, "PUT", `/v1/configs/${created.slug}`, { body: { name: "back" } })).status).toBe(404);
    expect((await call(gateway, "DELETE", `/v1/configs/${created.slug}`)).status).toBe(404);
    const list = await call(gateway, "GET", "/v1/configs");
    expect(list.body.data.map((record: { slug: string }) => record.slug)).not.toContain(created.slug);
  });
});

describe("configs: the request path sees every write at once", () => {
  /** A chat request that names no provider: the config (by slug, or the workspace default) supplies it. */
  const chat = (headers: Record<string, string>, key?: string) =>
    call(gateway, "POST", "/v1/chat/completions", {
      key,
      headers,
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] },
    });

  it("by slug: an update and a delete take effect although the config was cached", async () => {
    const { slug } = await createConfig({ name: "live", config: { provider: "openai", custom_host: `${upstream.url}/v1` } });
    expect((await chat({ "x-gateway-config": slug })).status).toBe(200);
    const moved = await call(gateway, "PUT", `/v1/configs/${slug}`, {
      body: { config: { provider: "openai", custom_host: `http://127.0.0.1:${await freePort()}/v1` } },
    });
    expect(moved.status).toBe(200);
    expect((await chat({ "x-gateway-config": slug })).status).toBe(502);
    expect((await call(gateway, "DELETE", `/v1/configs/${slug}`)).status).toBe(200);
    const gone = await chat({ "x-gateway-config": slug });
    expect(gone.status).toBe(400);
    expect(gone.body.error.param).toBe("x-gateway-config");
  });

  it("the default config: made, unmade and deleted, each seen at once", async () => {
    // A workspace of its own, so no other test's default config interferes.
    const admin = await call(gateway, "POST", "/v1/api-keys", { body: { name: "defaults", role: "admin", workspace_id: randomUUID() } });
    const key: string = admin.body.key;
    expect((await chat({}, key)).status).toBe(400); // no provider anywhere; "no default" is now cached
    const { slug } = await createConfig({ name: "fallback", config: { provider: "openai", custom_host: `${upstream.url}/v1` }, is_default: true }, key);
    expect((await chat({}, key)).status).toBe(200);
    expect((await call(gateway, "PUT", `/v1/configs/${slug}`, { key, body: { is_default: false } })).status).toBe(200);
    expect((await chat({}, key)).status).toBe(400);
    expect((await call(gateway, "PUT", `/v1/configs/${slug}`, { key, body: { is_default: true } })).status).toBe(200);
    expect((await chat({}, key)).status).toBe(200);
    expect((await call(gateway, "DELETE", `/v1/configs/${slug}`, { key })).status).toBe(200);
    expect((await chat({}, key)).status).toBe(400);
  });
});

describe("configs: bad bodies", () => {
  let slug: string;

  beforeAll(async () => {
    slug = (await createConfig({ name: "target of bad updates", config: { provider: "openai" } })).slug;
  });

  const cases: Array<{ what: string; body: unknown; param: string; code?: string; message?: RegExp }> = [
    { what: "missing name", body: { config: { provider: "openai" } }, param: "name" },
    { what: "empty name", body: { name: "", config: {} }, param: "name" },
    { what: "name of the wrong type", body: { name: 7, config: {} }, param: "name" },
    { what: "missing config", body: { name: "x" }, param: "config" },
    { what: "config of the wrong type", body: { name: "x", config: 42 }, param: "config" },
    { what: "config text that is not JSON", body: { name: "x", config: "{not json" }, param: "config" },
    { what: "config text that is an array", body: { name: "x", config: "[1]" }, param: "config" },
    { what: "unknown top-level config key", body: { name: "x", config: { provider: "openai", bogus_key: 1 } }, param: "config", message: /bogus_key/ },
    { what: "config key of the wrong type", body: { name: "x", config: { input_guardrails: "pg-a-00000000" } }, param: "config.input_guardrails" },
    { what: "bad target weight", body: { name: "x", config: { targets: [{ provider: "openai", weight: -1 }] } }, param: "config.targets.0.weight" },
    { what: "unknown provider", body: { name: "x", config: { provider: "nope-ai" } }, param: "config.provider", code: "unknown_provider" },
    { what: "unknown provider in a target", body: { name: "x", config: { targets: [{ provider: "openai" }, { provider: "nope-ai" }] } }, param: "config.targets.1.provider", code: "unknown_provider" },
    { what: "refused custom host", body: { name: "x", config: { provider: "openai", custom_host: "http://169.254.169.254/latest" } }, param: "config.custom_host", code: "forbidden_custom_host" },
    { what: "custom host that is not a URL", body: { name: "x", config: { provider: "openai", custom_host: "not a url" } }, param: "config.custom_host", message: /^config\.custom_host must be an absolute/ },
    { what: "target custom host with credentials", body: { name: "x", config: { targets: [{ provider: "openai", custom_host: "http://u:p@127.0.0.1/v1" }] } }, param: "config.targets.0.custom_host", code: "forbidden_custom_host", message: /^config\.targets\.0\.custom_host must not contain/ },
    { what: "is_default of the wrong type", body: { name: "x", config: {}, is_default: "yes" }, param: "is_default" },
  ];

  for (const { what, body, param, code, message } of cases) {
    it(`POST refuses ${what}`, async () => {
      const response = await call(gateway, "POST", "/v1/configs", { body });
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expectContract("createConfig", response);
      expect(response.body.error.param).toBe(param);
      expect(response.body.error.code).toBe(code ?? "invalid_request");
      if (message) expect(response.body.error.message).toMatch(message);
    });
  }

  const updateCases: Array<{ what: string; body: unknown; param: string; code?: string; message?: RegExp }> = [
    { what: "an empty body", body: {}, param: "body" },
    { what: "an unknown field", body: { name: "x", colour: "red" }, param: "colour", message: /colour/ },
    { what: "unknown top-level config key", body: { config: { provider: "openai", bogus_key: 1 } }, param: "config", message: /bogus_key/ },
    { what: "config of the wrong type", body: { config: true }, param: "config" },
    { what: "empty name", body: { name: "" }, param: "name" },
    { what: "unknown provider", body: { config: JSON.stringify({ provider: "nope-ai" }) }, param: "config.provider", code: "unknown_provider" },
    { what: "a custom host that is not a URL", body: { config: { provider: "openai", custom_host: "not a url" } }, param: "config.custom_host", message: /^config\.custom_host must be an absolute/ },
  ];

  for (const { what, body, param, code, message } of updateCases) {
    it(`PUT refuses ${what} and makes no version`, async () => {
      const response = await call(gateway, "PUT", `/v1/configs/${slug}`, { body });
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      if (param === "colour") {
        // The validation hook reports a strict object's unknown key on the object itself (param null
        // at the top level); the key is named in the message. Naming it in param too would be better.
        expect([param, null]).toContain(response.body.error.param);
      } else {
        expect(response.body.error.param).toBe(param);
      }
      expect(response.body.error.code).toBe(code ?? "invalid_request");
      if (message) expect(response.body.error.message).toMatch(message);
      const versions = await call(gateway, "GET", `/v1/configs/${slug}/versions`);
      expect(versions.body.total).toBe(1);
    });
  }

  it("refuses a body that is not JSON", async () => {
    const response = await call(gateway, "POST", "/v1/configs", { rawBody: "{name:" });
    expect(response.status).toBe(400);
  });
});

describe("configs: access", () => {
  it("gives a service key 403 on every config route", async () => {
    const service = await call(gateway, "POST", "/v1/api-keys", { body: { name: "svc", role: "service" } });
    expect(service.status).toBe(201);
    const { slug } = await createConfig({ name: "admin only", config: { provider: "openai" } });
    for (const [method, path, body] of [
      ["POST", "/v1/configs", { name: "x", config: {} }],
      ["GET", "/v1/configs", undefined],
      ["GET", `/v1/configs/${slug}`, undefined],
      ["PUT", `/v1/configs/${slug}`, { name: "y" }],
      ["DELETE", `/v1/configs/${slug}`, undefined],
      ["GET", `/v1/configs/${slug}/versions`, undefined],
    ] as const) {
      const denied = await call(gateway, method, path, { key: service.body.key, body });
      expect(denied.status, `${method} ${path}`).toBe(403);
      expect(denied.body.error.code).toBe("insufficient_scope");
    }
    expect((await call(gateway, "GET", `/v1/configs/${slug}/versions`)).body.total).toBe(1);
  });

  it("answers 401 without a gateway key", async () => {
    expect((await call(gateway, "GET", "/v1/configs", { key: null })).status).toBe(401);
  });

  it("keeps each workspace's configs to itself", async () => {
    const config = { provider: "openai" };
    const mine = await createConfig({ name: "workspace one", config });
    const workspaceId = randomUUID();
    const other = await call(gateway, "POST", "/v1/api-keys", { body: { name: "other admin", role: "admin", workspace_id: workspaceId } });
    expect(other.status).toBe(201);
    const otherKey: string = other.body.key;

    const listed = await call(gateway, "GET", "/v1/configs", { key: otherKey });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((record: { slug: string }) => record.slug)).not.toContain(mine.slug);
    for (const [method, path, body] of [
      ["GET", `/v1/configs/${mine.slug}`, undefined],
      ["PUT", `/v1/configs/${mine.slug}`, { name: "taken over" }],
      ["DELETE", `/v1/configs/${mine.slug}`, undefined],
      ["GET", `/v1/configs/${mine.slug}/versions`, undefined],
    ] as const) {
      const response = await call(gateway, method, path, { key: otherKey, body });
      expect(response.status, `${method} ${path}`).toBe(404);
    }

    // The other workspace's own config lives in its workspace, invisible from the first.
    const theirs = await createConfig({ name: "workspace two", config }, otherKey);
    const theirsGot = await call(gateway, "GET", `/v1/configs/${theirs.slug}`, { key: otherKey });
    expect(theirsGot.body.workspace_id).toBe(workspaceId);
    expect(theirsGot.body.owner_id).toBe(other.body.id);
    expect((await call(gateway, "GET", `/v1/configs/${theirs.slug}`)).status).toBe(404);
    const mineList = await call(gateway, "GET", "/v1/configs");
    expect(mineList.body.data.map((record: { slug: string }) => record.slug)).not.toContain(theirs.slug);

    // Untouched by the other workspace's attempts.
    const versions = await call(gateway, "GET", `/v1/configs/${mine.slug}/versions`);
    expect(versions.status).toBe(200);
    expect(versions.body.total).toBe(1);
    expect(versions.body.data[0].name).toBe("workspace one");
  });
});
