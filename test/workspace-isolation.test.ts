import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { randomUUID } from "node:crypto";
import { DEFAULT_WORKSPACE_ID } from "../src/control-plane/auth-context.ts";
import { openApiDocument } from "../src/generated/openapi-document.gen.ts";
import { call, startGateway, startUpstream, upstreamHeaders, type RunningGateway } from "./support/harness.ts";

/**
 * Every operation of the document that names one stored object in its path, called by another
 * workspace's admin with this workspace's object: always 404 (never a 403 that would confirm it
 * exists, never a change), and every listing of the other workspace shows none of it. The list of
 * operations comes from the document, so a new resource route fails here until it has a case.
 */

let gateway: RunningGateway;
let upstream: LLMock;
let otherKey: string;
/** This workspace's objects, by the path parameter that names them. */
const own: Record<string, string> = {};
let traceId = "";

interface Operation {
  method: string;
  path: string;
  operationId: string;
}

/** Operations that name one stored object of the workspace: control-plane paths with a parameter, and running a stored prompt. */
function resourceOperations(): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(openApiDocument.paths as unknown as Record<string, Record<string, { operationId?: string; tags?: readonly string[] }>>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation.operationId || !path.includes("{")) continue;
      const inference = operation.tags?.includes("Inference") ?? false;
      if (inference && operation.operationId !== "createPromptCompletion") continue;
      found.push({ method: method.toUpperCase(), path, operationId: operation.operationId });
    }
  }
  return found;
}

/** A body each operation accepts, so the request reaches the lookup rather than the validator. */
const BODIES: Record<string, unknown> = {
  callMcpServer: { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "other", version: "1" } } },
  openMcpServerStream: undefined,
  endMcpServerSession: undefined,
  getApiKey: undefined,
  updateApiKey: { name: "renamed" },
  deleteApiKey: undefined,
  rotateApiKey: { grace_period_seconds: 0 },
  getLog: undefined,
  getConfig: undefined,
  updateConfig: { name: "renamed" },
  deleteConfig: undefined,
  listConfigVersions: undefined,
  getVirtualKey: undefined,
  updateVirtualKey: { name: "renamed" },
  deleteVirtualKey: undefined,
  getPrompt: undefined,
  updatePrompt: { name: "renamed" },
  deletePrompt: undefined,
  listPromptVersions: undefined,
  publishPromptVersion: { version: 1 },
  movePromptLabel: { version: 1 },
  deletePromptLabel: undefined,
  diffPromptVersions: undefined,
  renderPrompt: { variables: { name: "x" } },
  createPromptCompletion: { variables: { name: "x" } },
  getGuardrail: undefined,
  updateGuardrail: { name: "renamed" },
  deleteGuardrail: undefined,
  getMcpServer: undefined,
  updateMcpServer: { server_description: "renamed" },
  deleteMcpServer: undefined,
  getBudget: undefined,
  updateBudget: { name: "renamed" },
  deleteBudget: undefined,
  getWebhook: undefined,
  updateWebhook: { description: "renamed" },
  deleteWebhook: undefined,
  listWebhookDeliveries: undefined,
  getRun: undefined,
  resumeRun: undefined,
  getReconciliationSettings: undefined,
  setReconciliationSettings: { admin_key: "sk-admin-other-workspace" },
  deleteReconciliationSettings: undefined,
  reconcileVirtualKey: { start: "2026-01-01", end: "2026-01-02" },
  getExperiment: undefined,
  updateExperiment: { name: "renamed", status: "stopped" },
  deleteExperiment: undefined,
  promoteExperimentVariant: { variant: "control" },
  getExperimentResults: undefined,
};

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("isolated", { content: "Only mine." });
  gateway = await startGateway();
  const created = await call(gateway, "POST", "/v1/api-keys", { body: { name: "other admin", role: "admin", workspace_id: randomUUID() } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  otherKey = created.body.key;

  const make = async (path: string, body: unknown): Promise<Record<string, string>> => {
    const made = await call(gateway, "POST", path, { body });
    expect(made.status, `${path}: ${JSON.stringify(made.body)}`).toBe(201);
    return made.body;
  };
  const config = await make("/v1/configs", { name: "mine", config: { provider: "openai" } });
  const virtualKey = await make("/v1/virtual-keys", { name: "mine", provider: "openai", key: "sk-mine-0123456789abcdef" });
  const prompt = await make("/v1/prompts", { name: "mine", provider: "openai", model: "gpt-4o-mini", messages: [{ role: "user", content: "Hello {{name}}" }] });
  const labelled = await call(gateway, "PUT", `/v1/prompts/${prompt.id}/labels/staging`, { body: { version: 1 } });
  expect(labelled.status, JSON.stringify(labelled.body)).toBe(200);
  const guardrail = await make("/v1/guardrails", { name: "mine", checks: [{ type: "contains", params: { words: ["x"], operator: "any" } }] });
  const apiKey = await make("/v1/api-keys", { name: "mine", role: "service" });
  const mcpServer = await make("/v1/mcp-servers", { server_label: "mine_mcp", server_url: "http://127.0.0.1:9/mcp", authorization: "mcp-token-mine-0123" });
  const budget = await make("/v1/budgets", { name: "mine", scope: { type: "workspace" }, limit_usd: 100, period: { type: "none" } });
  const webhook = await make("/v1/webhooks", { url: "http://127.0.0.1:9/hook", events: ["run.halted"] });
  const experiment = await make("/v1/experiments", { name: "mine", variants: [{ name: "control", weight: 1 }, { name: "candidate", weight: 1, virtual_key: virtualKey.slug }] });
  const started = await call(gateway, "PATCH", `/v1/experiments/${experiment.id}`, { body: { status: "running" } });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const chat = await call(gateway, "POST", "/v1/chat/completions", {
    body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "isolated" }] },
    // A run with limits: its counts are kept, in this workspace only.
    headers: { ...upstreamHeaders(gateway, upstream), authorization: "Bearer sk-upstream", "x-gateway-trace-id": "isolated-run", "x-gateway-config": JSON.stringify({ run_limits: { max_requests: 100 } }) },
  });
  expect(chat.status).toBe(200);
  const logId = chat.headers.get("x-gateway-log-id")!;
  traceId = chat.headers.get("x-gateway-trace-id")!;
  await make("/v1/feedback", { trace_id: traceId, value: 5 });
  await gateway.flushLogs();
  Object.assign(own, { config: config.slug, virtualKey: virtualKey.slug, prompt: prompt.id, guardrail: guardrail.slug, apiKey: apiKey.id, log: logId, mcpServer: mcpServer.server_label, budget: budget.id, webhook: webhook.id, run: "isolated-run", experiment: experiment.id });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
});

/** The path with this workspace's object in it. */
function ownPath(path: string): string {
  const resource = path.startsWith("/v1/configs")
    ? own.config
    : path.startsWith("/v1/virtual-keys")
      ? own.virtualKey
      : path.startsWith("/v1/prompts")
        ? own.prompt
        : path.startsWith("/v1/guardrails")
          ? own.guardrail
          : path.startsWith("/v1/mcp-servers") || path.startsWith("/mcp/")
            ? own.mcpServer
          : path.startsWith("/v1/budgets")
            ? own.budget
          : path.startsWith("/v1/webhooks")
            ? own.webhook
          : path.startsWith("/v1/runs")
            ? own.run
          : path.startsWith("/v1/experiments")
            ? own.experiment
          : path.startsWith("/v1/api-keys")
            ? own.apiKey
            : path.startsWith("/v1/logs")
              ? own.log
              : undefined;
  if (resource === undefined) throw new Error(`no object of this workspace for ${path}`);
  // The object first; the parameters after it name a part of it that exists in this workspace.
  return path.replace(/\{[^}]+\}/, encodeURIComponent(resource)).replace(/\{([^}]+)\}/g, (_, name: string) => PART_OF_OBJECT[name] ?? `{${name}}`);
}

/** Values of the path parameters after the object's own: its first version, the label it carries. */
const PART_OF_OBJECT: Record<string, string> = { label: "staging", from: "1", to: "1" };

describe("another workspace never sees, changes or learns of this workspace's objects", () => {
  const operations = resourceOperations();

  it("has a case for every operation of the document that names a stored object", () => {
    expect(operations.length).toBeGreaterThan(15);
    expect(operations.map((operation) => operation.operationId).filter((id) => !(id in BODIES))).toEqual([]);
  });

  it.each(operations)("$method $path ($operationId) answers 404 with the envelope", async ({ method, path, operationId }) => {
    const body = BODIES[operationId];
    const headers: Record<string, string> = operationId === "createPromptCompletion" ? { authorization: "Bearer sk-upstream" } : {};
    const answer = await call(gateway, method, ownPath(path), { key: otherKey, headers, ...(body === undefined ? {} : { body }) });
    expect(answer.status, JSON.stringify(answer.body)).toBe(404);
    expect(answer.body.error).toMatchObject({ code: "not_found", type: "not_found_error" });
  });

  it("lists, exports, analytics and feedback of the other workspace hold nothing of this one", async () => {
    // The other workspace's log holds its own refused calls, whose paths name these objects: its
    // records are checked by id and workspace below instead.
    const otherLog = await call(gateway, "GET", "/v1/logs", { key: otherKey });
    expect(otherLog.body.data.map((record: { id: string }) => record.id)).not.toContain(own.log);
    expect(new Set(otherLog.body.data.map((record: { workspace_id: string }) => record.workspace_id)).has(DEFAULT_WORKSPACE_ID)).toBe(false);
    for (const path of ["/v1/configs", "/v1/virtual-keys", "/v1/prompts", "/v1/guardrails", "/v1/mcp-servers", "/v1/budgets", "/v1/webhooks", "/v1/experiments"]) {
      const listed = await call(gateway, "GET", path, { key: otherKey });
      expect(listed.status, path).toBe(200);
      expect(JSON.stringify(listed.body), path).not.toMatch(new RegExp(Object.values(own).filter(Boolean).join("|")));
    }
    // The other workspace's audit log holds the creation of its own key only (its refused attempts
    // changed nothing), and asking for this workspace's log is refused (it is no organisation admin).
    const otherAudit = await call(gateway, "GET", "/v1/audit-events", { key: otherKey });
    expect(otherAudit.status).toBe(200);
    expect(otherAudit.body.data.map((event: { action: string }) => event.action)).toEqual(["api_key.created"]);
    expect(JSON.stringify(otherAudit.body)).not.toMatch(new RegExp(Object.values(own).filter(Boolean).join("|")));
    const mineAsked = await call(gateway, "GET", `/v1/audit-events?workspace_id=${DEFAULT_WORKSPACE_ID}`, { key: otherKey });
    expect(mineAsked.status).toBe(403);
    const ownAudit = await call(gateway, "GET", "/v1/audit-events?limit=200");
    expect(ownAudit.body.data.map((event: { resource_id: string }) => event.resource_id)).toEqual(expect.arrayContaining([own.apiKey, own.prompt]));
    const keys = await call(gateway, "GET", "/v1/api-keys", { key: otherKey });
    expect(keys.body.data.map((key: { id: string }) => key.id)).not.toContain(own.apiKey);
    const feedback = await call(gateway, "GET", `/v1/feedback?trace_id=${encodeURIComponent(traceId)}`, { key: otherKey });
    expect(feedback.body.data).toEqual([]);
    // The other workspace's analytics count its own requests (its refused prompt run), none of these.
    const summary = await call(gateway, "GET", "/v1/analytics/summary", { key: otherKey });
    const otherLogs = await call(gateway, "GET", "/v1/logs", { key: otherKey });
    expect(summary.body.requests).toBe(otherLogs.body.data.length);
    const mine = await call(gateway, "GET", "/v1/analytics/summary");
    expect(mine.body.requests).toBeGreaterThanOrEqual(1);
    const exported = await fetch(`${gateway.url}/v1/logs/export?format=jsonl`, { headers: { "x-gateway-api-key": otherKey } });
    expect(exported.status).toBe(200);
    expect(await exported.text()).not.toContain(own.log!);
    const usedVirtualKey = await call(gateway, "POST", "/v1/chat/completions", {
      key: otherKey,
      body: { model: `@${own.virtualKey}/gpt-4o-mini`, messages: [{ role: "user", content: "isolated" }] },
    });
    expect(usedVirtualKey.status).toBe(400);
    expect(JSON.stringify(usedVirtualKey.body)).not.toContain("sk-mine");
  });

  it("leaves every object of this workspace as it was", async () => {
    for (const path of [`/v1/configs/${own.config}`, `/v1/virtual-keys/${own.virtualKey}`, `/v1/prompts/${own.prompt}`, `/v1/guardrails/${own.guardrail}`, `/v1/mcp-servers/${own.mcpServer}`, `/v1/api-keys/${own.apiKey}`, `/v1/logs/${own.log}`, `/v1/experiments/${own.experiment}`]) {
      const read = await call(gateway, "GET", path);
      expect(read.status, path).toBe(200);
      if (typeof read.body.name === "string") expect(read.body.name, path).toBe("mine");
    }
    expect((await call(gateway, "GET", `/v1/experiments/${own.experiment}`)).body.status).toBe("running");
  });
});
