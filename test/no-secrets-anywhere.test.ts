import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import type { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";
import { startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";

/**
 * One run that hands the gateway credentials every way it takes them, makes requests that
 * succeed, fail and stream, then looks for every secret everywhere the gateway writes or
 * answers: response bodies and headers, `/v1/logs` views, every store row, the SQLite file's
 * bytes, `/metrics`, and the gateway's own stdout, stderr and console. What the upstream mock
 * itself keeps (its journal) is not looked at.
 */

const token = (prefix: string) => `${prefix}${randomBytes(12).toString("hex")}`;
const SECRETS = {
  adminKey: token("gw-admin-"),
  bearer: token("sk-bearer-"),
  virtualKey: token("sk-vk-"),
  bedrockFieldSecret: `wJalrXUtnFEMI${randomBytes(12).toString("hex")}FIELD`,
  bedrockHeaderSecret: `wJalrXUtnFEMI${randomBytes(12).toString("hex")}HEADR`,
  bedrockSessionToken: `FwoGZXIvYXdz${randomBytes(12).toString("hex")}`,
  inlineConfigKey: token("sk-inline-"),
  storedConfigKey: token("sk-stored-"),
  webhookHeader: token("hook-secret-"),
  wrongGatewayKey: token("gw-wrong-"),
  serviceKey: "", // created below; the one answer that shows it is left out of the search
};
const ACCESS_KEY_ID = "AKIANOSECRETSEXAMPLE";
const BEDROCK_MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0";

let gateway: RunningGateway;
let upstream: LLMock;
let hook: Server;
let hookUrl: string;
const databaseUrl = sqliteTestUrl();
const databaseFile = databaseUrl.slice("file:".length);

/** Everything searched, each with where it came from. */
const haystack: { where: string; text: string }[] = [];
const output: string[] = [];

function capture(): void {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, "write").mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      output.push(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write);
  }
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    const original = console[method].bind(console);
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      output.push(args.map((arg) => (arg instanceof Error ? `${arg.message}\n${arg.stack}` : typeof arg === "string" ? arg : JSON.stringify(arg))).join(" "));
      original(...args);
    });
  }
}

/** A request to the gateway whose whole answer (status, headers, body text) joins the haystack. */
async function send(label: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown; search?: boolean } = {}) {
  const headers: Record<string, string> = { "x-gateway-api-key": SECRETS.adminKey, ...init.headers };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${gateway.url}${path}`, { method: init.method ?? (init.body === undefined ? "GET" : "POST"), headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const text = await response.text();
  if (init.search !== false) {
    haystack.push({ where: `${label}: headers`, text: JSON.stringify([...response.headers]) });
    haystack.push({ where: `${label}: body`, text });
  }
  return { status: response.status, text, headers: response.headers };
}

const chatBody = (model: string, stream = false, content = "hello") => ({ model, stream, messages: [{ role: "user", content }] });
const toUpstream = () => ({ "x-gateway-provider": "openai", "x-gateway-custom-host": `${upstream.url}/v1` });

beforeAll(async () => {
  capture();
  hook = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.url === "/fail") return res.writeHead(500, { "content-type": "text/plain" }).end("hook down");
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ verdict: req.url !== "/deny" }));
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, "127.0.0.1", resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;
  upstream = await startUpstream();
  upstream.onMessage("hello", { content: "Hello back", usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } });
  upstream.onMessage("bedrock hello", { content: "Hello from Bedrock", usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } });
  gateway = await startGateway({ GATEWAY_DATABASE_URL: databaseUrl, GATEWAY_ADMIN_KEY: SECRETS.adminKey, GATEWAY_QUIET: false, GATEWAY_METRICS: "public" });
});

afterAll(async () => {
  vi.restoreAllMocks();
  await gateway?.close();
  await upstream?.stop();
  hook?.closeAllConnections();
  await new Promise<void>((resolve) => hook?.close(() => resolve()));
  await removeSqliteTestDatabase(databaseUrl);
});

describe("no secret anywhere", () => {
  it("finds none of the credentials in answers, logs, store rows, the database file, metrics or output", async () => {
    const statuses: Record<string, number> = {};
    const logIds: string[] = [];
    const run = async (label: string, path: string, init: Parameters<typeof send>[2]) => {
      const answer = await send(label, path, init);
      statuses[label] = answer.status;
      const logId = answer.headers.get("x-gateway-log-id");
      if (logId) logIds.push(logId);
      return answer;
    };

    // Stored credentials, made through the admin API.
    const service = await send("create service key", "/v1/api-keys", { body: { name: "svc", role: "service" }, search: false });
    SECRETS.serviceKey = JSON.parse(service.text).key;
    expect(SECRETS.serviceKey).toMatch(/^gw_/);
    const slugOf = async (label: string, path: string, body: unknown) => {
      const answer = await run(label, path, { body });
      expect(answer.status, answer.text).toBe(201);
      return JSON.parse(answer.text).slug as string;
    };
    const vk = await slugOf("create openai virtual key", "/v1/virtual-keys", { name: "openai", provider: "openai", key: SECRETS.virtualKey, custom_host: `${upstream.url}/v1` });
    const bedrockVk = await slugOf("create bedrock virtual key", "/v1/virtual-keys", {
      name: "bedrock",
      provider: "bedrock",
      custom_host: upstream.url,
      fields: { aws_access_key_id: ACCESS_KEY_ID, aws_secret_access_key: SECRETS.bedrockFieldSecret, aws_region: "eu-central-1" },
    });
    const webhook = (path: string) => [{ type: "webhook", params: { url: `${hookUrl}${path}`, headers: { authorization: `Bearer ${SECRETS.webhookHeader}` } } }];
    const passGuard = await slugOf("create passing guardrail", "/v1/guardrails", { name: "pass", checks: webhook("/ok") });
    const denyGuard = await slugOf("create denying guardrail", "/v1/guardrails", { name: "deny", checks: webhook("/deny"), action: { deny: true } });
    const failGuard = await slugOf("create failing guardrail", "/v1/guardrails", { name: "fail", checks: webhook("/fail"), action: { deny: true } });
    const storedConfig = (guardrail: string) => ({ provider: "openai", api_key: SECRETS.storedConfigKey, custom_host: `${upstream.url}/v1`, input_guardrails: [guardrail] });
    const config = await slugOf("create config", "/v1/configs", { name: "passing", config: storedConfig(passGuard) });
    const denyConfig = await slugOf("create denying config", "/v1/configs", { name: "denying", config: storedConfig(denyGuard) });
    const failConfig = await slugOf("create failing config", "/v1/configs", { name: "failing", config: storedConfig(failGuard) });
    for (const [label, path] of [["get virtual key", `/v1/virtual-keys/${bedrockVk}`], ["list configs", "/v1/configs"], ["get guardrail", `/v1/guardrails/${passGuard}`], ["list api keys", "/v1/api-keys"]]) {
      await run(label!, path!, {});
    }

    // Requests: every way of passing a credential, answered, failed and streamed.
    const bearer = { ...toUpstream(), authorization: `Bearer ${SECRETS.bearer}` };
    await run("bearer", "/v1/chat/completions", { headers: bearer, body: chatBody("gpt-4o-mini") });
    await run("bearer stream", "/v1/chat/completions", { headers: bearer, body: chatBody("gpt-4o-mini", true) });
    upstream.nextRequestError(429, { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" });
    await run("bearer upstream 429", "/v1/chat/completions", { headers: bearer, body: chatBody("gpt-4o-mini") });
    upstream.nextRequestError(500, { message: "Upstream broke", type: "server_error" });
    await run("bearer upstream 500 stream", "/v1/chat/completions", { headers: bearer, body: chatBody("gpt-4o-mini", true) });
    await run("bearer unreachable", "/v1/chat/completions", { headers: { ...bearer, "x-gateway-custom-host": "http://127.0.0.1:9/v1" }, body: chatBody("gpt-4o-mini") });
    await run("bearer bad body", "/v1/chat/completions", { headers: bearer, body: { model: 7 } });
    await run("service key", "/v1/chat/completions", { headers: { ...bearer, "x-gateway-api-key": SECRETS.serviceKey }, body: chatBody("gpt-4o-mini") });
    await run("wrong gateway key", "/v1/chat/completions", { headers: { ...bearer, "x-gateway-api-key": SECRETS.wrongGatewayKey }, body: chatBody("gpt-4o-mini") });
    await run("wrong gateway key as bearer", "/v1/chat/completions", { headers: { ...toUpstream(), "x-gateway-api-key": "", authorization: `Bearer ${SECRETS.wrongGatewayKey}` }, body: chatBody("gpt-4o-mini") });

    await run("virtual key", "/v1/chat/completions", { body: chatBody(`@${vk}/gpt-4o-mini`) });
    await run("virtual key stream", "/v1/chat/completions", { body: chatBody(`@${vk}/gpt-4o-mini`, true) });
    upstream.nextRequestError(401, { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" });
    await run("virtual key upstream 401", "/v1/chat/completions", { body: chatBody(`@${vk}/gpt-4o-mini`) });
    await run("virtual key to another host", "/v1/chat/completions", { headers: { "x-gateway-virtual-key": vk, "x-gateway-custom-host": "http://127.0.0.1:9/v1" }, body: chatBody("gpt-4o-mini") });

    await run("bedrock fields", "/v1/chat/completions", { body: chatBody(`@${bedrockVk}/${BEDROCK_MODEL}`, false, "bedrock hello") });
    await run("bedrock fields stream", "/v1/chat/completions", { body: chatBody(`@${bedrockVk}/${BEDROCK_MODEL}`, true, "bedrock hello") });
    const bedrockHeaders = {
      "x-gateway-provider": "bedrock",
      "x-gateway-custom-host": upstream.url,
      "x-gateway-aws-access-key-id": ACCESS_KEY_ID,
      "x-gateway-aws-secret-access-key": SECRETS.bedrockHeaderSecret,
      "x-gateway-aws-session-token": SECRETS.bedrockSessionToken,
      "x-gateway-aws-region": "us-east-1",
    };
    await run("bedrock headers", "/v1/chat/completions", { headers: bedrockHeaders, body: chatBody(BEDROCK_MODEL, false, "bedrock hello") });
    await run("bedrock headers bad region", "/v1/chat/completions", { headers: { ...bedrockHeaders, "x-gateway-aws-region": "moon-1" }, body: chatBody(BEDROCK_MODEL, false, "bedrock hello") });

    const inline = { provider: "openai", api_key: SECRETS.inlineConfigKey, custom_host: `${upstream.url}/v1` };
    await run("inline config", "/v1/chat/completions", { headers: { "x-gateway-config": JSON.stringify(inline) }, body: chatBody("gpt-4o-mini") });
    await run("inline config stream", "/v1/chat/completions", { headers: { "x-gateway-config": JSON.stringify(inline) }, body: chatBody("gpt-4o-mini", true) });
    await run("inline config bad", "/v1/chat/completions", { headers: { "x-gateway-config": JSON.stringify({ ...inline, retry: { attempts: "many" } }) }, body: chatBody("gpt-4o-mini") });
    await run("inline config unreachable", "/v1/chat/completions", { headers: { "x-gateway-config": JSON.stringify({ ...inline, custom_host: "http://127.0.0.1:9/v1" }) }, body: chatBody("gpt-4o-mini", true) });

    await run("stored config", "/v1/chat/completions", { headers: { "x-gateway-config": config }, body: chatBody("gpt-4o-mini") });
    await run("stored config stream", "/v1/chat/completions", { headers: { "x-gateway-config": config }, body: chatBody("gpt-4o-mini", true) });
    await run("stored config denied", "/v1/chat/completions", { headers: { "x-gateway-config": denyConfig }, body: chatBody("gpt-4o-mini") });
    await run("stored config hook failing", "/v1/chat/completions", { headers: { "x-gateway-config": failConfig }, body: chatBody("gpt-4o-mini", true) });

    // The run did what it claims: answers, upstream errors kept, denials and refusals.
    expect(statuses).toMatchObject({
      bearer: 200,
      "bearer stream": 200,
      "bearer upstream 429": 429,
      "bearer unreachable": 502,
      "bearer bad body": 400,
      "service key": 200,
      "wrong gateway key": 401,
      "virtual key": 200,
      "virtual key stream": 200,
      "virtual key upstream 401": 401,
      "virtual key to another host": 400,
      "bedrock fields": 200,
      "bedrock fields stream": 200,
      "bedrock headers": 200,
      "inline config": 200,
      "inline config stream": 200,
      "stored config": 200,
      "stored config stream": 200,
      "stored config denied": 446,
    });
    expect(statuses["inline config bad"]).toBe(400);
    expect(statuses["bedrock headers bad region"]).toBe(400);
    expect(logIds.length).toBeGreaterThanOrEqual(15);

    // Logs, as the API shows them and as stored.
    await gateway.flushLogs();
    for (const id of logIds) {
      const view = await send(`log ${id}`, `/v1/logs/${id}`);
      expect(view.status, view.text).toBe(200);
    }
    await send("log list", "/v1/logs?limit=100");
    await send("metrics", "/metrics");
    // The audit log holds every stored secret's before and after views: it must show them masked.
    const audit = await send("audit events", "/v1/audit-events?limit=200");
    expect(audit.status, audit.text).toBe(200);
    const audited = (JSON.parse(audit.text) as { data: { action: string }[] }).data.map((event) => event.action);
    expect(audited).toEqual(expect.arrayContaining(["virtual_key.created", "config.created", "guardrail.created", "api_key.created"]));
    const db = gateway.gateway.deps.store.db;
    for (const table of ["logs", "log_metadata", "log_rollups", "virtual_keys", "config_versions", "configs", "guardrails", "api_keys", "stored_responses", "key_spend", "audit_events"] as const) {
      const rows = await db.selectFrom(table).selectAll().execute();
      haystack.push({ where: `store rows of ${table}`, text: JSON.stringify(rows) });
    }
    const stored = (await db.selectFrom("logs").select("id").execute()).map((row) => row.id);
    expect(stored).toEqual(expect.arrayContaining(logIds));

    const files: { where: string; bytes: Buffer }[] = [];
    for (const suffix of ["", "-wal", "-shm"]) {
      const bytes = await readFile(`${databaseFile}${suffix}`).catch(() => null);
      if (bytes) files.push({ where: `database file${suffix}`, bytes });
    }
    expect(files.length).toBeGreaterThan(0);
    // The capture itself works (the gateway in process prints nothing on this run's paths).
    console.error("[capture check]");
    expect(output.join("\n")).toContain("[capture check]");
    haystack.push({ where: "gateway stdout, stderr and console", text: output.join("\n") });

    const hits: string[] = [];
    for (const [name, secret] of Object.entries(SECRETS)) {
      for (const { where, text } of haystack) if (text.includes(secret)) hits.push(`${name} in ${where}`);
      for (const { where, bytes } of files) if (bytes.includes(Buffer.from(secret, "utf8"))) hits.push(`${name} in ${where}`);
    }
    expect(hits).toEqual([]);
  });
});
