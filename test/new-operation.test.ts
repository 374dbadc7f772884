/**
 * Adding an OpenAI endpoint is the document plus one route file: on a copy of the project, an
 * operation is added to `openapi/gateway.yaml`, `npm run codegen` writes its route file's first
 * version and everything generated, and the copy's gateway proxies, logs and prices a call to it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { randomBytes } from "node:crypto";
import { parseDocument } from "yaml";
import OpenAI from "openai";
import { DEFAULT_WORKSPACE_ID } from "../src/control-plane/auth-context.ts";
import { configWith } from "../src/config.ts";
import type { Gateway } from "../src/gateway.ts";
import { resolveModelPrice } from "../src/operation/cost.ts";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..");
// Under the project, so the copy resolves the project's node_modules.
const copy = join(root, "test-artifacts", `new-operation-${randomBytes(4).toString("hex")}`);

let upstream: Server;
let upstreamUrl: string;
const received: { path: string; body: string }[] = [];

beforeAll(async () => {
  await mkdir(copy, { recursive: true });
  for (const part of ["src", "scripts", "openapi", "docs", "package.json", "tsconfig.json"]) {
    await cp(join(root, part), join(copy, part), { recursive: true, filter: (source) => !source.includes("node_modules") });
  }
  // The new operation: OpenAI's moderations operation again, at a new path and id.
  const path = join(copy, "openapi", "gateway.yaml");
  const document = parseDocument(await readFile(path, "utf8"));
  const moderations = document.getIn(["paths", "/v1/moderations"]) as { toJSON(): Record<string, Record<string, unknown>> };
  const post = moderations.toJSON().post!;
  document.setIn(["paths", "/v1/widgets/generations"], { post: { ...post, operationId: "createWidgetGeneration", summary: "Generate a widget through the upstream" } });
  await writeFile(path, document.toString());
  await run(process.execPath, ["--import", "tsx", "scripts/codegen.ts"], { cwd: copy });

  upstream = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      received.push({ path: request.url ?? "", body });
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ id: "widget-1", model: "gpt-4o-mini", results: [], usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 } }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
}, 180_000);

afterAll(async () => {
  await new Promise<void>((resolve) => upstream?.close(() => resolve()));
  await rm(copy, { recursive: true, force: true });
});

describe("an operation added to the document", () => {
  it("gets a route file from codegen that names its operation and nothing of the document", async () => {
    const file = await readFile(join(copy, "src", "routes", "createWidgetGeneration.ts"), "utf8");
    expect(file).toContain("proxiedOperation(createWidgetGenerationRoute, {");
    expect(file).toContain("export const registerCreateWidgetGeneration = proxiedRoute(createWidgetGenerationRoute, createWidgetGenerationOperation);");
    expect(file).not.toMatch(/\/v1\/widgets|"POST"|"createWidgetGeneration"/);
    const modules = await readFile(join(copy, "src", "generated", "route-modules.gen.ts"), "utf8");
    expect(modules).toContain('import { registerCreateWidgetGeneration } from "../routes/createWidgetGeneration.ts";');
  });

  it("is proxied, logged and priced by the copy's gateway", async () => {
    const { createGateway } = (await import(/* @vite-ignore */ join(copy, "src", "gateway.ts"))) as { createGateway: (config: ReturnType<typeof configWith>) => Promise<Gateway> };
    const adminKey = `admin-${randomBytes(8).toString("hex")}`;
    const dataDir = join(copy, "data");
    const gateway = await createGateway(
      configWith({
        GATEWAY_DATABASE_URL: `file:${join(dataDir, "gateway.db")}`,
        GATEWAY_DATA_DIR: dataDir,
        GATEWAY_ADMIN_KEY: adminKey,
        GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
        GATEWAY_QUIET: true,
      }),
    );
    try {
      const client = new OpenAI({
        apiKey: "sk-upstream",
        baseURL: "http://gateway.test/v1",
        defaultHeaders: { "x-gateway-api-key": adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": `${upstreamUrl}/v1` },
        fetch: async (input, init) => gateway.app.fetch(new Request(input as string, init as RequestInit)),
      });
      const { data, response } = await client.post<Record<string, unknown>>("/widgets/generations", { body: { model: "gpt-4o-mini", input: "a blue widget" } }).withResponse();
      expect(data).toMatchObject({ id: "widget-1" });
      expect(received.at(-1)).toEqual({ path: "/v1/widgets/generations", body: JSON.stringify({ model: "gpt-4o-mini", input: "a blue widget" }) });

      // The document's check runs: the moderations body requires `input`.
      await expect(client.post("/widgets/generations", { body: { model: "gpt-4o-mini" } })).rejects.toMatchObject({ status: 400 });

      await gateway.deps.logWriter.flush();
      const record = await gateway.deps.store.logs.get(response.headers.get("x-gateway-log-id")!, DEFAULT_WORKSPACE_ID);
      expect(record).toMatchObject({ route: "createWidgetGeneration", status: 200, promptTokens: 1000, completionTokens: 500, provider: "openai" });
      // 1,000 input and 500 output tokens of gpt-4o-mini at the price table's figures.
      const price = resolveModelPrice("openai", "gpt-4o-mini")!;
      expect(record!.costUsd).toBeCloseTo((1000 * price.input + 500 * price.output) / 1e6, 10);
    } finally {
      await gateway.drain();
    }
  }, 120_000);
});
