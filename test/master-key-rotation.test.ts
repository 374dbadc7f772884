import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSecretBox } from "../src/crypto/secret-box.ts";
import { TEST_DATABASES, type TestDatabase } from "./support/databases.ts";
import { call, startGateway, type RunningGateway } from "./support/harness.ts";
import { startRecordingUpstream, type RecordingUpstream } from "./support/recording-upstream.ts";

/**
 * Master-key rotation end to end: secrets stored under key A; a restart with `B,A` serves
 * every request while it moves them to B; the rows then open under B and not under A; a
 * restart with `B` alone serves them all.
 */

const KEY_A = randomBytes(32);
const KEY_B = randomBytes(32);
const ADMIN_KEY = `rotation-admin-${randomBytes(8).toString("hex")}`;
const VK_KEY = "sk-vk-rotation-5b2f8e1c9a7d3046";
const CONFIG_KEY = "sk-config-rotation-7e41c0d9b2a8f635";
const HOOK_TOKEN = "Bearer hook-rotation-c3a9e27f1d";
const ACCESS_KEY_ID = "AKIAROTATIONEXAMPLE1";
const SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiROTATIONKEY";
const BEDROCK_MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0";

let upstream: RecordingUpstream;

beforeAll(async () => {
  upstream = await startRecordingUpstream((request) => {
    if (request.path.endsWith("/check")) return { verdict: true };
    if (request.path.includes("/converse")) {
      return { output: { message: { role: "assistant", content: [{ text: "from bedrock" }] } }, stopReason: "end_turn", usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } };
    }
    return {
      id: "chatcmpl-rotation",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "gpt-4o-mini",
      choices: [{ index: 0, message: { role: "assistant", content: "from openai" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    };
  });
});

afterAll(async () => {
  await upstream?.close();
});

const keyText = (...keys: Buffer[]) => keys.map((key) => key.toString("base64")).join(",");
const upstreamHost = () => upstream.url.slice(0, -"/v1".length);

interface Stored {
  vkOpenai: string;
  vkBedrock: string;
  config: string;
}

async function storeSecrets(gateway: RunningGateway): Promise<Stored> {
  const created = async (path: string, body: unknown) => {
    const response = await call(gateway, "POST", path, { body });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.slug as string;
  };
  const vkOpenai = await created("/v1/virtual-keys", { name: "openai", provider: "openai", key: VK_KEY, custom_host: upstream.url });
  const vkBedrock = await created("/v1/virtual-keys", {
    name: "bedrock",
    provider: "bedrock",
    custom_host: upstreamHost(),
    fields: { aws_access_key_id: ACCESS_KEY_ID, aws_secret_access_key: SECRET_ACCESS_KEY, aws_region: "eu-central-1" },
  });
  const guardrail = await created("/v1/guardrails", { name: "hook", checks: [{ type: "webhook", params: { url: `${upstreamHost()}/check`, headers: { authorization: HOOK_TOKEN } } }] });
  const body = { provider: "openai", api_key: CONFIG_KEY, custom_host: upstream.url, input_guardrails: [guardrail] };
  const config = await created("/v1/configs", { name: "rotating", config: body });
  // A second version keeps the key through the mask: both versions hold it sealed.
  const updated = await call(gateway, "PUT", `/v1/configs/${config}`, { body: { config: { ...body, api_key: "********", retry: { attempts: 1 } } } });
  expect(updated.status, JSON.stringify(updated.body)).toBe(200);
  return { vkOpenai, vkBedrock, config };
}

/** Requests through every stored secret; each must reach the upstream with the secret opened. */
async function useSecrets(gateway: RunningGateway, stored: Stored): Promise<void> {
  const chat = (headers: Record<string, string>, model: string) =>
    call(gateway, "POST", "/v1/chat/completions", { headers, body: { model, messages: [{ role: "user", content: "hello" }] } });
  const seen = () => upstream.received.at(-1)!;

  const viaVk = await chat({}, `@${stored.vkOpenai}/gpt-4o-mini`);
  expect(viaVk.status, JSON.stringify(viaVk.body)).toBe(200);
  expect(seen().headers.authorization).toBe(`Bearer ${VK_KEY}`);

  const viaFields = await chat({}, `@${stored.vkBedrock}/${BEDROCK_MODEL}`);
  expect(viaFields.status, JSON.stringify(viaFields.body)).toBe(200);
  expect(viaFields.body.choices[0].message.content).toBe("from bedrock");
  expect(seen().headers.authorization).toContain(`Credential=${ACCESS_KEY_ID}/`);

  const before = upstream.received.length;
  const viaConfig = await chat({ "x-gateway-config": stored.config }, "gpt-4o-mini");
  expect(viaConfig.status, JSON.stringify(viaConfig.body)).toBe(200);
  const [hook, chatRequest] = upstream.received.slice(before);
  expect(hook?.path).toBe("/check");
  expect(hook?.headers.authorization).toBe(HOOK_TOKEN);
  expect(chatRequest?.headers.authorization).toBe(`Bearer ${CONFIG_KEY}`);
}

/** Every sealed value in every sealed column, as the store holds it. */
async function sealedValues(gateway: RunningGateway): Promise<string[]> {
  const db = gateway.gateway.deps.store.db;
  const keys = await db.selectFrom("virtual_keys").select(["encrypted_key", "credential_fields"]).execute();
  const configs = await db.selectFrom("config_versions").select("config").execute();
  const guardrails = await db.selectFrom("guardrails").select("checks").execute();
  const inJson = (text: string | null) => [...(text ?? "").matchAll(/"\$sealed":"([^"]+)"/g)].map((match) => match[1] as string);
  return [
    ...keys.map((row) => row.encrypted_key),
    ...keys.flatMap((row) => inJson(row.credential_fields)),
    ...configs.flatMap((row) => inJson(row.config)),
    ...guardrails.flatMap((row) => inJson(row.checks)),
  ];
}

describe.each(TEST_DATABASES)("master-key rotation on $name", ({ create }) => {
  let database: TestDatabase;
  let gateway: RunningGateway | undefined;

  beforeAll(async () => {
    database = await create();
  });

  afterAll(async () => {
    await gateway?.close();
    await database?.cleanup();
  });

  const start = (keys: string) => startGateway({ GATEWAY_DATABASE_URL: database.url, GATEWAY_ADMIN_KEY: ADMIN_KEY, GATEWAY_ENCRYPTION_KEY: keys });

  it("moves every stored secret from A to B without a failed request, then runs on B alone", async () => {
    gateway = await start(keyText(KEY_A));
    const stored = await storeSecrets(gateway);
    await useSecrets(gateway, stored);
    expect(await gateway.gateway.resealed).toEqual({ resealed: 0, unopened: 0 });
    const underA = await sealedValues(gateway);
    // Two virtual keys, the Bedrock secret field, the key in both config versions, the webhook header.
    expect(underA).toHaveLength(6);
    const onlyA = createSecretBox(KEY_A);
    const onlyB = createSecretBox(KEY_B);
    for (const sealed of underA) expect(onlyA.isCurrent(sealed)).toBe(true);
    await gateway.close();

    // Requests run while re-sealing does: they open under either key.
    gateway = await start(keyText(KEY_B, KEY_A));
    await useSecrets(gateway, stored);
    // Five rows: two virtual keys, two config versions, one guardrail.
    expect(await gateway.gateway.resealed).toEqual({ resealed: 5, unopened: 0 });
    await useSecrets(gateway, stored);
    const underB = await sealedValues(gateway);
    expect(underB).toHaveLength(6);
    const plaintexts = [VK_KEY, "", SECRET_ACCESS_KEY, CONFIG_KEY, HOOK_TOKEN];
    for (const sealed of underB) {
      expect(underA).not.toContain(sealed);
      expect(onlyB.isCurrent(sealed)).toBe(true);
      expect(() => onlyA.open(sealed)).toThrow();
      expect(plaintexts).toContain(onlyB.open(sealed));
    }
    await gateway.close();

    gateway = await start(keyText(KEY_B));
    await useSecrets(gateway, stored);
    expect(await gateway.gateway.resealed).toEqual({ resealed: 0, unopened: 0 });
    await gateway.close();

    // The old key alone no longer opens them: a request through a stored key fails, it is not sent in clear or empty.
    gateway = await start(keyText(KEY_A));
    expect((await gateway.gateway.resealed)?.unopened).toBe(6);
    const refused = await call(gateway, "POST", "/v1/chat/completions", { body: { model: `@${stored.vkOpenai}/gpt-4o-mini`, messages: [{ role: "user", content: "hello" }] } });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(refused.body)).not.toContain(VK_KEY);
    await gateway.close();
    gateway = undefined;
  });
});
