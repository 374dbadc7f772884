import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { call, startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";

/**
 * Changing where a stored secret goes requires sending the secret again: an admin key sees
 * stored secrets masked, and must not be able to keep one while pointing it at a new host.
 */

const CONFIG_SECRET = "sk-config-secret-stays-home-0001";
const VK_SECRET = "sk-virtual-key-secret-stays-home-0002";
const HOOK_SECRET = "hook-secret-stays-home-0003";
const NEW_SECRET = "sk-sent-again-with-new-host-0004";
const MASK = "********";

let gateway: RunningGateway;
let upstream: LLMock;

interface Recorder {
  server: Server;
  url: string;
  /** Every request received: path and the headers that carry secrets. */
  seen: Array<{ path: string; authorization?: string; hookSecret?: string }>;
}

/** A loopback server that records what reaches it and answers as a passing webhook would. */
async function startRecorder(): Promise<Recorder> {
  const seen: Recorder["seen"] = [];
  const server = createServer((request, response) => {
    seen.push({ path: String(request.url), authorization: request.headers.authorization, hookSecret: request.headers["x-hook-secret"] as string | undefined });
    request.resume();
    request.on("end", () => response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ verdict: true })));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** The host an attacker would point a kept secret at. */
let trap: Recorder;
/** The webhook the guardrail is stored with. */
let hook: Recorder;

const chat = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] };

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("hello", { content: "hi" });
  trap = await startRecorder();
  hook = await startRecorder();
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  for (const recorder of [trap, hook]) {
    recorder?.server.closeAllConnections();
    await new Promise((resolve) => recorder?.server.close(resolve));
  }
});

beforeEach(() => {
  trap.seen.length = 0;
  hook.seen.length = 0;
});

function expectMoveRefused(response: { status: number; body: any }, param: string, secret: string): void {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.error).toMatchObject({ type: "invalid_request_error", code: "invalid_request", param });
  expect(response.body.error.message).toMatch(/send the (key|header values) again/);
  expect(JSON.stringify(response.body)).not.toContain(secret);
}

describe("a config's stored key", () => {
  let slug: string;
  const upstreamHost = () => `${upstream.url}/v1`;

  beforeEach(async () => {
    const created = await call(gateway, "POST", "/v1/configs", {
      body: { name: "compatible", config: { provider: "openai-compatible", api_key: CONFIG_SECRET, custom_host: upstreamHost() } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    slug = created.body.slug;
  });

  const chatThroughConfig = () => call(gateway, "POST", "/v1/chat/completions", { body: chat, headers: { "x-gateway-config": slug } });

  it("is not moved to a new host by an update that sends the key masked", async () => {
    const moved = await call(gateway, "PUT", `/v1/configs/${slug}`, {
      body: { config: { provider: "openai-compatible", api_key: MASK, custom_host: `${trap.url}/v1` } },
    });
    expectMoveRefused(moved, "config.custom_host", CONFIG_SECRET);
    const served = await chatThroughConfig();
    expect(served.status, JSON.stringify(served.body)).toBe(200);
    expect(trap.seen).toEqual([]);
  });

  it("is not moved by a target that inherits it, nor by another provider's base URL", async () => {
    const viaTarget = await call(gateway, "PUT", `/v1/configs/${slug}`, {
      body: { config: { provider: "openai-compatible", api_key: MASK, custom_host: upstreamHost(), targets: [{ custom_host: `${trap.url}/v1` }] } },
    });
    expectMoveRefused(viaTarget, "config.targets.0.custom_host", CONFIG_SECRET);
    const toProvider = await call(gateway, "PUT", `/v1/configs/${slug}`, { body: { config: { provider: "openai", api_key: MASK } } });
    expectMoveRefused(toProvider, "config.custom_host", CONFIG_SECRET);
    const served = await chatThroughConfig();
    expect(served.status, JSON.stringify(served.body)).toBe(200);
    expect(trap.seen).toEqual([]);
  });

  it("moves with the key sent again, and stays with the key masked when the host is unchanged", async () => {
    const sameHost = await call(gateway, "PUT", `/v1/configs/${slug}`, {
      body: { config: { provider: "openai-compatible", api_key: MASK, custom_host: `${upstream.url.toUpperCase()}/v1/` } },
    });
    expect(sameHost.status, JSON.stringify(sameHost.body)).toBe(200);
    expect((await chatThroughConfig()).status).toBe(200);

    const resent = await call(gateway, "PUT", `/v1/configs/${slug}`, {
      body: { config: { provider: "openai-compatible", api_key: NEW_SECRET, custom_host: `${trap.url}/v1` } },
    });
    expect(resent.status, JSON.stringify(resent.body)).toBe(200);
    await chatThroughConfig();
    expect(trap.seen.map((seen) => seen.authorization)).toEqual([`Bearer ${NEW_SECRET}`]);
  });
});

describe("a virtual key's stored key", () => {
  const createVirtualKey = async (customHost?: string): Promise<string> => {
    const created = await call(gateway, "POST", "/v1/virtual-keys", {
      body: { name: "stored", provider: "openai", key: VK_SECRET, ...(customHost && { custom_host: customHost }) },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.slug;
  };
  const chatThroughVirtualKey = (slug: string) => call(gateway, "POST", "/v1/chat/completions", { body: { ...chat, model: `@${slug}/gpt-4o-mini` } });

  it("is not moved to a new host, added or removed, by an update without the key", async () => {
    const slug = await createVirtualKey(`${upstream.url}/v1`);
    expectMoveRefused(await call(gateway, "PUT", `/v1/virtual-keys/${slug}`, { body: { custom_host: `${trap.url}/v1` } }), "custom_host", VK_SECRET);
    expectMoveRefused(await call(gateway, "PUT", `/v1/virtual-keys/${slug}`, { body: { custom_host: null } }), "custom_host", VK_SECRET);
    const unhosted = await createVirtualKey();
    expectMoveRefused(await call(gateway, "PUT", `/v1/virtual-keys/${unhosted}`, { body: { custom_host: `${trap.url}/v1` } }), "custom_host", VK_SECRET);

    const served = await chatThroughVirtualKey(slug);
    expect(served.status, JSON.stringify(served.body)).toBe(200);
    expect(trap.seen).toEqual([]);
    const kept = await call(gateway, "GET", `/v1/virtual-keys/${unhosted}`);
    expect(kept.body.custom_host).toBeNull();
  });

  it("moves with the key sent again, and accepts the same host without it", async () => {
    const slug = await createVirtualKey(`${upstream.url}/v1`);
    const sameHost = await call(gateway, "PUT", `/v1/virtual-keys/${slug}`, { body: { custom_host: `${upstream.url}/v1/`, name: "renamed" } });
    expect(sameHost.status, JSON.stringify(sameHost.body)).toBe(200);
    expect((await chatThroughVirtualKey(slug)).status).toBe(200);

    const resent = await call(gateway, "PUT", `/v1/virtual-keys/${slug}`, { body: { custom_host: `${trap.url}/v1`, key: NEW_SECRET } });
    expect(resent.status, JSON.stringify(resent.body)).toBe(200);
    await chatThroughVirtualKey(slug);
    expect(trap.seen.map((seen) => seen.authorization)).toEqual([`Bearer ${NEW_SECRET}`]);
  });
});

describe("a webhook guardrail's stored header values", () => {
  let slug: string;
  const webhook = (url: string, secret: string) => ({ type: "webhook", params: { url, headers: { "x-hook-secret": secret } } });

  beforeEach(async () => {
    const created = await call(gateway, "POST", "/v1/guardrails", { body: { name: "hooked", checks: [webhook(`${hook.url}/webhook`, HOOK_SECRET)] } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    slug = created.body.slug;
  });

  const chatThroughGuardrail = () =>
    call(gateway, "POST", "/v1/chat/completions", {
      body: chat,
      headers: { "x-gateway-config": JSON.stringify({ provider: "openai", custom_host: `${upstream.url}/v1`, input_guardrails: [slug] }) },
    });

  it("are not moved to a new URL by an update that sends them masked", async () => {
    const moved = await call(gateway, "PUT", `/v1/guardrails/${slug}`, { body: { checks: [webhook(`${trap.url}/webhook`, MASK)] } });
    expectMoveRefused(moved, "checks.0.params.url", HOOK_SECRET);
    const served = await chatThroughGuardrail();
    expect(served.status, JSON.stringify(served.body)).toBe(200);
    expect(trap.seen).toEqual([]);
    expect(hook.seen.map((seen) => seen.hookSecret)).toEqual([HOOK_SECRET]);
  });

  it("move with the value sent again, and stay with the value masked when the URL is unchanged", async () => {
    const sameUrl = await call(gateway, "PUT", `/v1/guardrails/${slug}`, { body: { checks: [webhook(`${hook.url}/webhook`, MASK)], action: { deny: true } } });
    expect(sameUrl.status, JSON.stringify(sameUrl.body)).toBe(200);
    expect((await chatThroughGuardrail()).status).toBe(200);
    expect(hook.seen.map((seen) => seen.hookSecret)).toEqual([HOOK_SECRET]);

    const resent = await call(gateway, "PUT", `/v1/guardrails/${slug}`, { body: { checks: [webhook(`${trap.url}/webhook`, NEW_SECRET)] } });
    expect(resent.status, JSON.stringify(resent.body)).toBe(200);
    await chatThroughGuardrail();
    expect(trap.seen.map((seen) => seen.hookSecret)).toEqual([NEW_SECRET]);
  });
});
