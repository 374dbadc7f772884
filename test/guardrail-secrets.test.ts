import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { DEFAULT_ORGANISATION_ID, DEFAULT_WORKSPACE_ID } from "../src/control-plane/auth-context.ts";
import { isoNow, uuidv4 } from "../src/lib/ids.ts";
import { sealStoredGuardrailHeaders } from "../src/store/seal-guardrail-headers.ts";
import { call, startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";

/** Webhook guardrail headers are secrets: sealed at rest, masked in every view, sent only to the webhook. */

const TOKEN = "Bearer hook-token-5f1e9a0c7d";
const API_KEY = "hook-api-key-2b8c4d6e";

let gateway: RunningGateway;
let upstream: LLMock;
let hook: Server;
let hookUrl: string;
let received: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  hook = createServer((req, res) => {
    received.push(req.headers);
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ verdict: true })));
  });
  await new Promise<void>((resolve) => hook.listen(0, "127.0.0.1", resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/check`;
  upstream = await startUpstream();
  upstream.onMessage("hello", { content: "Hello back" });
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  hook?.closeAllConnections();
  await new Promise<void>((resolve) => hook.close(() => resolve()));
});

beforeEach(() => {
  received = [];
});

const webhookCheck = (headers: Record<string, string>) => ({ type: "webhook", params: { url: hookUrl, headers } });

/** A chat request whose inline config runs the guardrail on its input. */
const chatThrough = (slug: string) =>
  call(gateway, "POST", "/v1/chat/completions", {
    headers: { "x-gateway-config": JSON.stringify({ provider: "openai", custom_host: `${upstream.url}/v1`, input_guardrails: [slug] }) },
    body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] },
  });

async function storedChecksText(slug: string): Promise<string> {
  const row = await gateway.gateway.deps.store.db.selectFrom("guardrails").select("checks").where("slug", "=", slug).executeTakeFirstOrThrow();
  return row.checks;
}

async function createGuardrail(headers: Record<string, string>): Promise<any> {
  const created = await call(gateway, "POST", "/v1/guardrails", { body: { name: "hooked", checks: [webhookCheck(headers)] } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

describe("guardrails: webhook headers", () => {
  it("never shows a header value: create, get and list answer the mask", async () => {
    const created = await createGuardrail({ authorization: TOKEN, "x-api-key": API_KEY });
    const got = await call(gateway, "GET", `/v1/guardrails/${created.slug}`);
    const list = await call(gateway, "GET", "/v1/guardrails");
    for (const response of [created, got.body, list.body]) {
      expect(JSON.stringify(response)).not.toContain("hook-token");
      expect(JSON.stringify(response)).not.toContain(API_KEY);
    }
    expect(got.body.checks[0].params).toEqual({ url: hookUrl, headers: { authorization: "********", "x-api-key": "********" } });
  });

  it("stores no header value in clear, and the webhook still receives the real ones", async () => {
    const { slug } = await createGuardrail({ authorization: TOKEN, "x-api-key": API_KEY });
    const stored = await storedChecksText(slug);
    expect(stored).not.toContain("hook-token");
    expect(stored).not.toContain(API_KEY);
    const response = await chatThrough(slug);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ authorization: TOKEN, "x-api-key": API_KEY });
  });

  it("keeps a stored value when an update sends back the mask, and takes a new one when sent", async () => {
    const { slug } = await createGuardrail({ authorization: TOKEN, "x-api-key": API_KEY });
    const shown = (await call(gateway, "GET", `/v1/guardrails/${slug}`)).body;
    const masked = shown.checks[0].params.headers;
    const updated = await call(gateway, "PUT", `/v1/guardrails/${slug}`, {
      body: { checks: [webhookCheck({ ...masked, "x-api-key": "hook-api-key-rotated" })] },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(JSON.stringify(updated.body)).not.toContain("rotated");
    expect(await storedChecksText(slug)).not.toContain("rotated");
    expect((await chatThrough(slug)).status).toBe(200);
    expect(received[0]).toMatchObject({ authorization: TOKEN, "x-api-key": "hook-api-key-rotated" });
  });

  it("refuses the mask for a header that holds no stored value", async () => {
    const { slug } = await createGuardrail({ authorization: TOKEN });
    const updated = await call(gateway, "PUT", `/v1/guardrails/${slug}`, { body: { checks: [webhookCheck({ authorization: "********", "x-new": "********" })] } });
    expect(updated.status).toBe(400);
    expect(updated.body.error).toMatchObject({ code: "invalid_request", param: "checks.0.params.headers.x-new" });
    const created = await call(gateway, "POST", "/v1/guardrails", { body: { name: "masked", checks: [webhookCheck({ authorization: "********" })] } });
    expect(created.status).toBe(400);
    expect(created.body.error.param).toBe("checks.0.params.headers.authorization");
  });

  it("keeps guardrails saved with headers in clear working, masks them, and seals them at start", async () => {
    const slug = `pg-legacy-${uuidv4().slice(0, 8)}`;
    await gateway.gateway.deps.store.guardrails.create({
      id: uuidv4(),
      slug,
      name: "legacy",
      checks: [webhookCheck({ authorization: TOKEN })],
      action: { deny: false },
      organisationId: DEFAULT_ORGANISATION_ID,
      workspaceId: DEFAULT_WORKSPACE_ID,
      ownerId: null,
      updatedBy: null,
      createdAt: isoNow(),
    });
    expect(JSON.stringify((await call(gateway, "GET", `/v1/guardrails/${slug}`)).body)).not.toContain("hook-token");
    expect((await chatThrough(slug)).status).toBe(200);
    expect(received[0]?.authorization).toBe(TOKEN);

    expect(await sealStoredGuardrailHeaders(gateway.gateway.deps.store.db, gateway.gateway.deps.secrets)).toBeGreaterThanOrEqual(1);
    expect(await storedChecksText(slug)).not.toContain("hook-token");
    gateway.gateway.deps.controlPlane.forget("guardrail", DEFAULT_WORKSPACE_ID, slug);
    received = [];
    expect((await chatThrough(slug)).status).toBe(200);
    expect(received[0]?.authorization).toBe(TOKEN);
  });

  it("answers a clear 400 when a stored value does not open", async () => {
    const { slug } = await createGuardrail({ authorization: TOKEN });
    const unopenable = { $sealed: "v1.AAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBA.CCCC" };
    const tampered = JSON.stringify([{ type: "webhook", params: { url: hookUrl, headers: { authorization: unopenable } } }]);
    await gateway.gateway.deps.store.db.updateTable("guardrails").set({ checks: tampered }).where("slug", "=", slug).execute();
    gateway.gateway.deps.controlPlane.forget("guardrail", DEFAULT_WORKSPACE_ID, slug);
    const response = await chatThrough(slug);
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.error.message).toContain("checks.0.params.headers.authorization");
    expect(received).toHaveLength(0);
  });
});
