import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "../src/generated/openapi-document.gen.ts";
import { gatewayContractProblems } from "./support/contract.ts";
import { call, startGateway, type RunningGateway } from "./support/harness.ts";

/**
 * The document tells the whole truth about statuses: every operation is driven with a body that
 * is not JSON, a body past the gateway's limit and no gateway key, and whatever it answers must
 * be a status its own entry in the document lists, with a body of the documented shape.
 */

const MAX_BODY_BYTES = 4096;

interface Operation {
  id: string;
  method: string;
  path: string;
  jsonBody: boolean;
  inference: boolean;
  secured: boolean;
}

const operations: Operation[] = Object.entries(openApiDocument.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => ["get", "post", "put", "patch", "delete"].includes(method))
    .map(([method, operation]) => ({
      id: operation.operationId as string,
      method: method.toUpperCase(),
      // A path parameter gets a plausible value; the checks under test come before any lookup.
      path: path.replace(/\{[^}]+\}/g, "x1"),
      jsonBody: operation.requestBody?.content?.["application/json"] !== undefined,
      inference: (operation.tags as string[] | undefined)?.includes("Inference") === true,
      secured: operation.security === undefined || (operation.security as unknown[]).length > 0,
    })),
);

let gateway: RunningGateway;

beforeAll(async () => {
  gateway = await startGateway({ GATEWAY_MAX_BODY_BYTES: MAX_BODY_BYTES, GATEWAY_MAX_UPLOAD_BYTES: MAX_BODY_BYTES });
});

afterAll(async () => {
  await gateway?.close();
});

function documented(operation: Operation, answer: { status: number; body: unknown }): string[] {
  return gatewayContractProblems(operation.id, answer.status, answer.body).map((problem) => `${operation.method} ${operation.path}: ${problem}`);
}

describe("every status an operation answers is in the document", () => {
  const withBody = operations.filter((operation) => operation.jsonBody);
  const controlPlane = withBody.filter((operation) => !operation.inference);

  it("has operations to drive", () => {
    expect(controlPlane.length).toBeGreaterThan(10);
    expect(withBody.length).toBeGreaterThan(controlPlane.length);
  });

  it("a control-plane body that is not JSON is a documented 4xx", async () => {
    const problems: string[] = [];
    for (const operation of controlPlane) {
      const answer = await call(gateway, operation.method, operation.path, { rawBody: "name=x", headers: { "content-type": "text/plain" } });
      expect(answer.status, `${operation.method} ${operation.path}`).toBeGreaterThanOrEqual(400);
      expect(answer.status, `${operation.method} ${operation.path}`).toBeLessThan(500);
      problems.push(...documented(operation, answer));
    }
    expect(problems).toEqual([]);
  });

  it("a JSON body past the limit is a documented 413 on every operation that takes one", async () => {
    const problems: string[] = [];
    const oversized = JSON.stringify({ model: "gpt-4o-mini", padding: "x".repeat(MAX_BODY_BYTES) });
    for (const operation of withBody) {
      const answer = await call(gateway, operation.method, operation.path, { rawBody: oversized });
      expect(answer.status, `${operation.method} ${operation.path}`).toBe(413);
      problems.push(...documented(operation, answer));
    }
    expect(problems).toEqual([]);
  });

  it("a call without a gateway key is a documented 401 on every secured operation", async () => {
    const problems: string[] = [];
    for (const operation of operations.filter((item) => item.secured)) {
      const answer = await call(gateway, operation.method, operation.path, { key: null, ...(operation.jsonBody ? { body: {} } : {}) });
      expect(answer.status, `${operation.method} ${operation.path}`).toBe(401);
      problems.push(...documented(operation, answer));
    }
    expect(problems).toEqual([]);
  });
});
