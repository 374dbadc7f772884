import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LLMock } from "@copilotkit/aimock";
import { randomUUID } from "node:crypto";
import { DEFAULT_ORGANISATION_ID, DEFAULT_WORKSPACE_ID } from "../src/control-plane/auth-context.ts";
import { isoNow, uuidv4 } from "../src/lib/ids.ts";
import { legacySeal } from "../src/crypto/secret-box-fixtures.ts";
import { parseMasterKey } from "../src/crypto/secret-box.ts";
import { up as migrateSealedSecrets } from "../src/store/migrations/0006_structural_sealed_secrets.ts";
import { call, startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";

/** Configs can never break the requests they apply to: validated when stored, and again when used. */

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

const chat = (headers: Record<string, string>, key?: string) =>
  call(gateway, "POST", "/v1/chat/completions", {
    key,
    headers,
    body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] },
  });

/** A new workspace and an admin key of it, so a default config there touches no other test. */
async function workspaceAdmin(): Promise<{ key: string; workspaceId: string }> {
  const workspaceId = randomUUID();
  const created = await call(gateway, "POST", "/v1/api-keys", { body: { name: "integrity", role: "admin", workspace_id: workspaceId } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { key: created.body.key, workspaceId };
}

/** Writes a config row as an older gateway could have, past today's validation. */
async function storeUnchecked(workspaceId: string, config: unknown, isDefault = false): Promise<string> {
  const slug = `pc-legacy-${randomUUID().slice(0, 8)}`;
  await gateway.gateway.deps.store.configs.create({
    id: uuidv4(),
    slug,
    name: "legacy",
    isDefault,
    config: JSON.stringify(config),
    versionId: uuidv4(),
    organisationId: DEFAULT_ORGANISATION_ID,
    workspaceId,
    ownerId: null,
    updatedBy: null,
    createdAt: isoNow(),
  });
  return slug;
}

describe("configs: override_params the gateway reads are validated", () => {
  const badModels: unknown[] = [1, null, {}, [], "", true];

  it("refuses a stored config whose override model is not a non-empty string, at the root and in a target", async () => {
    for (const model of badModels) {
      const root = await call(gateway, "POST", "/v1/configs", { body: { name: "x", config: { provider: "openai", override_params: { model } } } });
      expect(root.status, JSON.stringify(model)).toBe(400);
      expect(root.body.error).toMatchObject({ code: "invalid_request", param: "config.override_params.model" });
      const target = await call(gateway, "POST", "/v1/configs", {
        body: { name: "x", config: { targets: [{ provider: "openai" }, { provider: "openai", override_params: { model } }] } },
      });
      expect(target.status, JSON.stringify(model)).toBe(400);
      expect(target.body.error).toMatchObject({ code: "invalid_request", param: "config.targets.1.override_params.model" });
    }
  });

  it("refuses other overrides the chat body would not accept, on create and on update", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ stream: "yes" }, "config.override_params.stream"],
      [{ messages: [] }, "config.override_params.messages"],
      [{ temperature: 3 }, "config.override_params.temperature"],
      [{ stream_options: 1 }, "config.override_params.stream_options"],
      [{ user: 42 }, "config.override_params.user"],
      [{ metadata: { team: 1 } }, "config.override_params.metadata"],
    ];
    const { slug } = (await call(gateway, "POST", "/v1/configs", { body: { name: "ok", config: { provider: "openai" } } })).body;
    for (const [override_params, param] of cases) {
      const created = await call(gateway, "POST", "/v1/configs", { body: { name: "x", config: { provider: "openai", override_params } } });
      expect(created.status, param).toBe(400);
      expect(created.body.error.param).toBe(param);
      const updated = await call(gateway, "PUT", `/v1/configs/${slug}`, { body: { config: JSON.stringify({ provider: "openai", override_params }) } });
      expect(updated.status, param).toBe(400);
      expect(updated.body.error.param).toBe(param);
    }
    expect((await call(gateway, "GET", `/v1/configs/${slug}/versions`)).body.total).toBe(1);
  });

  it("keeps overrides it does not read, and valid ones, as given", async () => {
    const override_params = { model: "gpt-4o", temperature: 0.2, stream: false, seed: 7, logit_bias: { "50256": -100 } };
    const created = await call(gateway, "POST", "/v1/configs", { body: { name: "fine", config: { provider: "openai", override_params } } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const got = await call(gateway, "GET", `/v1/configs/${created.body.slug}`);
    expect(JSON.parse(got.body.config).override_params).toEqual(override_params);
  });

  it("answers 400 naming the inline config for a bad override, never 500", async () => {
    for (const model of badModels) {
      const inline = JSON.stringify({ provider: "openai", custom_host: `${upstream.url}/v1`, override_params: { model } });
      const response = await chat({ "x-gateway-config": inline });
      expect(response.status, JSON.stringify(model)).toBe(400);
      expect(response.body.error).toMatchObject({ code: "invalid_request", param: "x-gateway-config.override_params.model" });
    }
  });

  it("answers 400 naming the config when a stored config's override breaks the body, by slug and as the default", async () => {
    const { key, workspaceId } = await workspaceAdmin();
    const config = { provider: "openai", custom_host: `${upstream.url}/v1`, override_params: { model: 1 } };
    const slug = await storeUnchecked(workspaceId, config);
    const bySlug = await chat({ "x-gateway-config": slug }, key);
    expect(bySlug.status, JSON.stringify(bySlug.body)).toBe(400);
    expect(bySlug.body.error).toMatchObject({ code: "invalid_request", param: "x-gateway-config" });
    expect(bySlug.body.error.message).toContain("override_params.model");

    await storeUnchecked(workspaceId, { ...config, override_params: { stream: "yes" } }, true);
    const byDefault = await chat({}, key);
    expect(byDefault.status, JSON.stringify(byDefault.body)).toBe(400);
    expect(byDefault.body.error.message).toContain("override_params.stream");
  });

  it("still applies valid overrides to the request", async () => {
    const inline = JSON.stringify({ provider: "openai", custom_host: `${upstream.url}/v1`, override_params: { model: "gpt-4o" } });
    const response = await chat({ "x-gateway-config": inline });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(upstream.getRequests().at(-1)?.body?.model).toBe("gpt-4o");
  });
});

describe("configs: stored api keys are told apart by structure", () => {
  const TYPED = "sealed:sk-typed-by-the-user-0001";
  const KEPT = "sk-config-key-to-keep-0002";
  const MIGRATED = "sk-stored-by-an-earlier-version-0003";
  /** Answers only these keys: a 200 proves which stored key reached it. */
  let guarded: LLMock;

  beforeAll(async () => {
    guarded = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent", auth: { apiKeys: [TYPED, KEPT, MIGRATED] } });
    guarded.onMessage("hello", { content: "Hello from the stored key" });
    await guarded.start();
  });

  afterAll(async () => {
    await guarded?.stop();
  });

  async function createWithKey(apiKey: string, key?: string): Promise<string> {
    const config = { provider: "openai", api_key: apiKey, custom_host: `${guarded.url}/v1` };
    const created = await call(gateway, "POST", "/v1/configs", { key, body: { name: "keyed", config } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.slug;
  }

  it("seals a key whose text begins with sealed: and sends it upstream as typed", async () => {
    const slug = await createWithKey(TYPED);
    const stored = await gateway.gateway.deps.store.configs.getBySlug(DEFAULT_WORKSPACE_ID, slug);
    expect(stored?.latest.config).not.toContain("sk-typed-by-the-user");
    const response = await chat({ "x-gateway-config": slug });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  });

  it("keeps the stored key when an update sends back the masked config it was shown", async () => {
    const slug = await createWithKey(KEPT);
    const shown = await call(gateway, "GET", `/v1/configs/${slug}`);
    expect(JSON.parse(shown.body.config).api_key).toBe("********");
    const resent = await call(gateway, "PUT", `/v1/configs/${slug}`, { body: { config: shown.body.config } });
    expect(resent.status, JSON.stringify(resent.body)).toBe(200);
    expect((await call(gateway, "GET", `/v1/configs/${slug}/versions`)).body.total).toBe(2);
    const response = await chat({ "x-gateway-config": slug });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  });

  it("refuses the mask where no key is stored", async () => {
    const { slug } = (await call(gateway, "POST", "/v1/configs", { body: { name: "keyless", config: { provider: "openai" } } })).body;
    const masked = { targets: [{ provider: "openai", api_key: "********" }] };
    const updated = await call(gateway, "PUT", `/v1/configs/${slug}`, { body: { config: masked } });
    expect(updated.status).toBe(400);
    expect(updated.body.error).toMatchObject({ code: "invalid_request", param: "config.targets.0.api_key" });
    const created = await call(gateway, "POST", "/v1/configs", { body: { name: "masked", config: masked } });
    expect(created.status).toBe(400);
    expect(created.body.error.param).toBe("config.targets.0.api_key");
  });

  it("answers a clear 400 for a stored key that does not open, never a 500", async () => {
    const { key, workspaceId } = await workspaceAdmin();
    const slug = await storeUnchecked(workspaceId, { provider: "openai", custom_host: `${upstream.url}/v1`, api_key: { $sealed: "v1.AAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBA.CCCC" } });
    const response = await chat({ "x-gateway-config": slug }, key);
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.error).toMatchObject({ code: "invalid_request", param: "x-gateway-config" });
    expect(response.body.error.message).toMatch(/api_key that cannot be decrypted/);
  });

  it("migrates keys stored in the former text form, and they keep working", async () => {
    const { key, workspaceId } = await workspaceAdmin();
    // The former text form predates key ids: its box output is the `v1.` form.
    const masterKey = parseMasterKey(gateway.gateway.deps.config.GATEWAY_ENCRYPTION_KEY ?? "")!;
    const former = `sealed:${legacySeal(masterKey, MIGRATED)}`;
    const slug = await storeUnchecked(workspaceId, { provider: "openai", custom_host: `${guarded.url}/v1`, targets: [{ api_key: former }] });
    await migrateSealedSecrets(gateway.gateway.deps.store.db as never);
    const stored = await gateway.gateway.deps.store.configs.getBySlug(workspaceId, slug);
    expect(JSON.parse(stored?.latest.config ?? "{}").targets[0].api_key).toEqual({ $sealed: former.slice("sealed:".length) });
    const response = await chat({ "x-gateway-config": slug }, key);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  });
});
