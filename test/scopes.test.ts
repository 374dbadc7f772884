import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "../src/generated/openapi-document.gen.ts";
import { call, startGateway, type RunningGateway } from "./support/harness.ts";

type Scope = "none" | "service" | "admin";
type Security = ReadonlyArray<Readonly<Record<string, readonly string[]>>>;

/** Each operation of the document with the scope its own `security` states (null when it states none or another). */
const operations = Object.entries(openApiDocument.paths).flatMap(([path, item]) =>
  Object.entries(item as Record<string, { operationId: string; security?: Security }>).map(([method, operation]) => ({
    method: method.toUpperCase(),
    // Path parameters filled with a well-formed id that names nothing.
    path: path.replace(/\{\w+\}/g, "00000000-0000-4000-8000-000000000000"),
    operationId: operation.operationId,
    scope: scopeOf(operation.security),
  })),
);

function scopeOf(security: Security | undefined): Scope | null {
  if (!security) return null;
  if (security.length === 0) return "none";
  // The MCP gateway's operations take the same key as a bearer token, as an alternative.
  const alternatives = security.filter((requirement) => !("gatewayBearer" in requirement && Object.keys(requirement).length === 1));
  const roles = alternatives.length === 1 ? alternatives[0]?.gatewayApiKey : undefined;
  if (roles?.length === 0) return "service";
  return roles?.length === 1 && roles[0] === "admin" ? "admin" : null;
}

let gateway: RunningGateway;
let serviceKey: string;

beforeAll(async () => {
  // Public metrics: `GET /metrics` needs no gateway key (off, it would answer 404 to anyone).
  gateway = await startGateway({ GATEWAY_METRICS: "public" });
  const created = await call(gateway, "POST", "/v1/api-keys", { body: { name: "service", role: "service" } });
  expect(created.status).toBe(201);
  serviceKey = created.body.key;
});

afterAll(async () => {
  await gateway?.close();
});

describe("scopes come from the document", () => {
  it("every operation states its own security: no key, any gateway key, or an admin key", () => {
    const undeclared = operations.filter((operation) => operation.scope === null).map((operation) => operation.operationId);
    expect(undeclared).toEqual([]);
    expect(operations.length).toBeGreaterThan(30);
  });

  it("a service key gets 403 insufficient_scope on exactly the admin operations", async () => {
    const denied: string[] = [];
    for (const operation of operations.filter((candidate) => candidate.scope !== "none")) {
      const response = await call(gateway, operation.method, operation.path, { key: serviceKey, body: operation.method === "GET" || operation.method === "DELETE" ? undefined : {} });
      if (response.status === 403) {
        expect(response.body.error, operation.operationId).toMatchObject({ code: "insufficient_scope", type: expect.any(String) });
        denied.push(operation.operationId);
      }
    }
    const admin = operations.filter((operation) => operation.scope === "admin").map((operation) => operation.operationId);
    expect(denied.sort()).toEqual(admin.sort());
    expect(admin.length).toBeGreaterThan(0);
  });

  it("an admin key is never refused for its scope", async () => {
    for (const operation of operations.filter((candidate) => candidate.scope === "admin")) {
      const response = await call(gateway, operation.method, operation.path, { body: operation.method === "GET" || operation.method === "DELETE" ? undefined : {} });
      expect(response.status, operation.operationId).not.toBe(403);
    }
  });

  it("operations that need no key answer without one; the others answer 401", async () => {
    for (const operation of operations) {
      const response = await fetch(`${gateway.url}${operation.path}`, { method: operation.method });
      await response.arrayBuffer();
      if (operation.scope === "none") expect(response.status, operation.operationId).toBe(200);
      else expect(response.status, operation.operationId).toBe(401);
    }
  });
});
