import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { call, startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";

/**
 * A stored upstream key (a virtual key's, a stored config's) goes only to the host stored with
 * it; a custom host from the request, an inline config or another config is refused with it.
 * Only a request's own key may be pointed at a host the request picks.
 */

const STORED_SECRET = "sk-stored-secret-never-elsewhere-0001";
const CONFIG_SECRET = "sk-config-secret-never-elsewhere-0002";
const OWN_KEY = "sk-callers-own-key-0003";

let gateway: RunningGateway;
let upstream: LLMock;
/** A host the caller controls: records every Authorization header it receives. */
let trap: Server;
let trapUrl: string;
const trapped: string[] = [];
let serviceKey: string;
let vkSlug: string;
let configWithKeySlug: string;
let configWithVkAndHostSlug: string;

const chat = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] };

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("hello", { content: "hi" });
  trap = createServer((request, response) => {
    trapped.push(String(request.headers.authorization));
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => trap.listen(0, "127.0.0.1", resolve));
  trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}/v1`;
  gateway = await startGateway();

  const service = await call(gateway, "POST", "/v1/api-keys", { body: { name: "service", role: "service" } });
  serviceKey = service.body.key;
  const vk = await call(gateway, "POST", "/v1/virtual-keys", { body: { name: "stored", provider: "openai", key: STORED_SECRET } });
  vkSlug = vk.body.slug;
  const withKey = await call(gateway, "POST", "/v1/configs", { body: { name: "with key", config: { provider: "openai", api_key: CONFIG_SECRET } } });
  configWithKeySlug = withKey.body.slug;
  const vkAndHost = await call(gateway, "POST", "/v1/configs", { body: { name: "vk elsewhere", config: { virtual_key: vkSlug, custom_host: trapUrl } } });
  configWithVkAndHostSlug = vkAndHost.body.slug;
  expect([service.status, vk.status, withKey.status, vkAndHost.status]).toEqual([201, 201, 201, 201]);
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await new Promise((resolve) => trap?.close(resolve));
});

describe("a stored credential goes only to its own host", () => {
  const refused: Array<{ what: string; model?: string; headers: () => Record<string, string>; param: string }> = [
    { what: "@<vk>/model with x-gateway-custom-host", model: `@VK/gpt-4o-mini`, headers: () => ({ "x-gateway-custom-host": trapUrl }), param: "x-gateway-custom-host" },
    { what: "x-gateway-provider: @<vk> with x-gateway-custom-host", headers: () => ({ "x-gateway-provider": `@${vkSlug}`, "x-gateway-custom-host": trapUrl }), param: "x-gateway-custom-host" },
    {
      what: "x-gateway-virtual-key with x-gateway-custom-host",
      headers: () => ({ "x-gateway-provider": "openai", "x-gateway-virtual-key": vkSlug, "x-gateway-custom-host": trapUrl }),
      param: "x-gateway-custom-host",
    },
    { what: "a stored config's api_key with x-gateway-custom-host", headers: () => ({ "x-gateway-config": configWithKeySlug, "x-gateway-custom-host": trapUrl }), param: "x-gateway-custom-host" },
    { what: "an inline config {virtual_key, custom_host}", headers: () => ({ "x-gateway-config": JSON.stringify({ virtual_key: vkSlug, custom_host: trapUrl }) }), param: "x-gateway-config" },
    {
      what: "an inline config's virtual key with x-gateway-custom-host",
      headers: () => ({ "x-gateway-config": JSON.stringify({ virtual_key: vkSlug }), "x-gateway-custom-host": trapUrl }),
      param: "x-gateway-custom-host",
    },
    { what: "a stored config pairing a virtual key with another host", headers: () => ({ "x-gateway-config": configWithVkAndHostSlug }), param: "x-gateway-config" },
  ];

  it.each(refused)("refuses $what, for a service key and an admin key alike", async ({ model, headers, param }) => {
    for (const key of [serviceKey, gateway.adminKey]) {
      const response = await call(gateway, "POST", "/v1/chat/completions", {
        key,
        body: { ...chat, model: model?.replace("VK", vkSlug) ?? chat.model },
        headers: { authorization: `Bearer ${OWN_KEY}`, ...headers() },
      });
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body.error).toMatchObject({ code: "forbidden_custom_host", param });
      expect(JSON.stringify(response.body)).not.toContain(STORED_SECRET);
    }
    expect(trapped).toEqual([]);
  });

  it("refuses a workspace default config's key with the request's custom host", async () => {
    const created = await call(gateway, "POST", "/v1/configs", { body: { name: "default", is_default: true, config: { provider: "openai", api_key: CONFIG_SECRET } } });
    expect(created.status).toBe(201);
    try {
      const response = await call(gateway, "POST", "/v1/chat/completions", { key: serviceKey, body: chat, headers: { "x-gateway-custom-host": trapUrl } });
      expect(response.status).toBe(400);
      expect(response.body.error.param).toBe("x-gateway-custom-host");
      expect(trapped).toEqual([]);
    } finally {
      await call(gateway, "DELETE", `/v1/configs/${created.body.slug}`);
    }
  });

  it("still sends the request's own key where the request points it, and stored keys to their own hosts", async () => {
    trapped.length = 0;
    const own = await call(gateway, "POST", "/v1/chat/completions", {
      key: serviceKey,
      body: chat,
      headers: { authorization: `Bearer ${OWN_KEY}`, "x-gateway-provider": "openai", "x-gateway-custom-host": trapUrl },
    });
    expect(own.status).toBe(200);
    const inline = await call(gateway, "POST", "/v1/chat/completions", {
      key: serviceKey,
      body: chat,
      headers: { "x-gateway-config": JSON.stringify({ provider: "openai", api_key: OWN_KEY, custom_host: trapUrl }) },
    });
    expect(inline.status).toBe(200);
    expect(trapped).toEqual([`Bearer ${OWN_KEY}`, `Bearer ${OWN_KEY}`]);
    trapped.length = 0;

    const hosted = await call(gateway, "POST", "/v1/virtual-keys", { body: { name: "hosted", provider: "openai", key: STORED_SECRET, custom_host: `${upstream.url}/v1` } });
    const viaVk = await call(gateway, "POST", "/v1/chat/completions", { key: serviceKey, body: { ...chat, model: `@${hosted.body.slug}/gpt-4o-mini` } });
    expect(viaVk.status, JSON.stringify(viaVk.body)).toBe(200);
    // Naming the same host the key is stored with is no redirection.
    const sameHost = await call(gateway, "POST", "/v1/chat/completions", {
      key: serviceKey,
      body: { ...chat, model: `@${hosted.body.slug}/gpt-4o-mini` },
      headers: { "x-gateway-custom-host": `${upstream.url}/v1` },
    });
    expect(sameHost.status).toBe(200);
    const storedConfig = await call(gateway, "POST", "/v1/configs", {
      body: { name: "key and host", config: { provider: "openai", api_key: CONFIG_SECRET, custom_host: `${upstream.url}/v1` } },
    });
    const viaConfig = await call(gateway, "POST", "/v1/chat/completions", { key: serviceKey, body: chat, headers: { "x-gateway-config": storedConfig.body.slug } });
    expect(viaConfig.status, JSON.stringify(viaConfig.body)).toBe(200);
    expect(trapped).toEqual([]);
  });
});

describe("a stored credential that does not decrypt", () => {
  it("answers 400 naming the virtual key, never a 500", async () => {
    const created = await call(gateway, "POST", "/v1/virtual-keys", { body: { name: "altered", provider: "openai", key: STORED_SECRET, custom_host: `${upstream.url}/v1` } });
    await gateway.gateway.deps.store.db.updateTable("virtual_keys").set({ encrypted_key: "v1.AAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBA.CCCC" }).where("slug", "=", created.body.slug).execute();
    const response = await call(gateway, "POST", "/v1/chat/completions", { key: serviceKey, body: { ...chat, model: `@${created.body.slug}/gpt-4o-mini` } });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.error).toMatchObject({ code: "invalid_request", param: "model" });
    expect(response.body.error.message).toContain(created.body.slug);
  });
});

describe("a stored config key that names no provider", () => {
  it("is refused rather than sent to whichever provider the request names", async () => {
    const created = await call(gateway, "POST", "/v1/configs", { body: { name: "keyed, no provider", config: { api_key: CONFIG_SECRET } } });
    expect(created.status).toBe(201);
    const attempts: Array<Record<string, string>> = [
      { "x-gateway-config": created.body.slug, "x-gateway-provider": "groq" },
      { "x-gateway-config": created.body.slug, "x-gateway-provider": "openai", "x-gateway-custom-host": trapUrl },
    ];
    for (const headers of attempts) {
      const response = await call(gateway, "POST", "/v1/chat/completions", { key: serviceKey, body: chat, headers });
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body.error).toMatchObject({ code: "invalid_request", param: "x-gateway-config" });
      expect(response.body.error.message).toContain("names no provider");
    }
    expect(trapped.filter((authorization) => authorization.includes(CONFIG_SECRET))).toEqual([]);
  });
});
