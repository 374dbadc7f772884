import { readdir } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { openApiDocument } from "../src/generated/openapi-document.gen.ts";
import { DASHBOARD_PATHS } from "../src/routes/dashboard.ts";
import { googleRoutePath } from "../src/routes/proxy/google-route.ts";
import { call, startGateway, startUpstream, upstreamHeaders, type RunningGateway } from "./support/harness.ts";
import { gatewayContractProblems, openaiContractProblems } from "./support/contract.ts";

let gateway: RunningGateway;
let upstream: LLMock;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("hello", { content: "Hello back", usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } });
  upstream.onMessage("stream it", { content: "a streamed answer" });
  // Compiling the official schemas blocks for seconds: done before any connection is open, so no
  // keep-alive socket outlives its timeout meanwhile (the next request would meet a reset).
  for (const schema of ["CreateChatCompletionResponse", "CreateChatCompletionStreamResponse"]) openaiContractProblems(schema, {});
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
});

describe("the OpenAPI document is the source of truth", () => {
  it("the app registers exactly the operations of the document", () => {
    const documented = Object.entries(openApiDocument.paths).flatMap(([path, item]) =>
      // A Gemini API method (`/v1beta/models/{model}:generateContent`) is matched as Hono can (`google-route.ts`).
      Object.keys(item).map((method) => `${method.toUpperCase()} ${googleRoutePath(path) ?? path.replace(/\{(\w+)\}/g, ":$1")}`),
    );
    // The dashboard's static files are served outside the document, like the pass-through.
    const registered = gateway.gateway.app.routes
      .filter((route) => route.method !== "ALL" && !DASHBOARD_PATHS.includes(route.path))
      .map((route) => `${route.method} ${route.path}`);
    expect(new Set(registered)).toEqual(new Set(documented));
    expect(documented.length).toBe(new Set(documented).size);
  });

  it("every route file is an operation of the document", async () => {
    const operationIds = Object.values(openApiDocument.paths).flatMap((item) => Object.values(item).map((operation) => operation.operationId));
    const routeFiles = (await readdir(new URL("../src/routes/", import.meta.url)))
      // `index.ts` registers them all.
      .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts") && name !== "index.ts")
      .map((name) => name.slice(0, -".ts".length));
    // The pass-through serves the upstream's own paths and the dashboard static files: the two
    // route files outside the document.
    expect(new Set(routeFiles)).toEqual(new Set([...operationIds, "passThrough", "dashboard"]));
  });

  it("serves the document and a reference page", async () => {
    const document = await call(gateway, "GET", "/openapi.json", { key: null });
    expect(document.status).toBe(200);
    expect(document.body.openapi).toBe("3.1.0");
    expect(document.body.paths["/v1/chat/completions"].post.operationId).toBe("createChatCompletion");
    const page = await fetch(`${gateway.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain("/openapi.json");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
  });
});

describe("responses conform to the documents", () => {
  it("chat completion: the gateway document and the official OpenAI schema", async () => {
    const response = await call(gateway, "POST", "/v1/chat/completions", {
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] },
      headers: upstreamHeaders(gateway, upstream),
    });
    expect(response.status).toBe(200);
    expect(gatewayContractProblems("createChatCompletion", 200, response.body)).toEqual([]);
    expect(openaiContractProblems("CreateChatCompletionResponse", response.body)).toEqual([]);
  });

  it("stream chunks match the official chunk schema", async () => {
    const response = await call(gateway, "POST", "/v1/chat/completions", {
      body: { model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "stream it" }] },
      headers: upstreamHeaders(gateway, upstream),
    });
    const chunks = String(response.body)
      .split("\n\n")
      .filter((event) => event.startsWith("data: {"))
      .map((event) => JSON.parse(event.slice("data: ".length)));
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(openaiContractProblems("CreateChatCompletionStreamResponse", chunk)).toEqual([]);
  });

  it("errors use the one envelope", async () => {
    const bad = await call(gateway, "POST", "/v1/chat/completions", { body: { messages: [] }, headers: upstreamHeaders(gateway, upstream) });
    expect(bad.status).toBe(400);
    expect(gatewayContractProblems("createChatCompletion", 400, bad.body)).toEqual([]);
    const unauthorised = await call(gateway, "GET", "/v1/logs", { key: "wrong-key-000000" });
    expect(gatewayContractProblems("listLogs", 401, unauthorised.body)).toEqual([]);
  });

  it("keys, logs and health", async () => {
    const health = await call(gateway, "GET", "/health", { key: null });
    expect(gatewayContractProblems("getHealth", 200, health.body)).toEqual([]);
    const created = await call(gateway, "POST", "/v1/api-keys", { body: { name: "contract", role: "service" } });
    expect(gatewayContractProblems("createApiKey", 201, created.body)).toEqual([]);
    const list = await call(gateway, "GET", "/v1/api-keys");
    expect(gatewayContractProblems("listApiKeys", 200, list.body)).toEqual([]);
    await gateway.flushLogs();
    const logs = await call(gateway, "GET", "/v1/logs?limit=5");
    expect(logs.body.data.length).toBeGreaterThan(0);
    expect(gatewayContractProblems("listLogs", 200, logs.body)).toEqual([]);
    const one = await call(gateway, "GET", `/v1/logs/${logs.body.data[0].id}`);
    expect(gatewayContractProblems("getLog", 200, one.body)).toEqual([]);
    const deleted = await call(gateway, "DELETE", `/v1/api-keys/${created.body.id}`);
    expect(gatewayContractProblems("deleteApiKey", 200, deleted.body)).toEqual([]);
  });
});
