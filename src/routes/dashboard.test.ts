import { OpenAPIHono } from "@hono/zod-openapi";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayApp } from "../app-env.ts";
import { handleError } from "../app-errors.ts";
import { DASHBOARD_CSP, SCALAR_BUNDLE_PATH, registerDashboard } from "./dashboard.ts";

describe("dashboard static routes", () => {
  let dir: string;
  let built: GatewayApp;
  let missing: GatewayApp;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "dashboard-"));
    await mkdir(join(dir, "assets"));
    await writeFile(join(dir, "index.html"), "<!doctype html><title>x</title>");
    await writeFile(join(dir, "assets", "main-ABC123.js"), "console.log(1)");
    await writeFile(join(dir, "secret.txt"), "not an asset");
    built = new OpenAPIHono() as GatewayApp;
    built.onError(handleError);
    registerDashboard(built, { distDir: dir });
    missing = new OpenAPIHono() as GatewayApp;
    registerDashboard(missing, { distDir: join(dir, "nowhere") });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("serves the page uncached, under a strict policy", async () => {
    const response = await built.request("/");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("content-security-policy")).toBe(DASHBOARD_CSP);
    expect(DASHBOARD_CSP).toContain("script-src 'self'");
    expect(DASHBOARD_CSP).not.toContain("unsafe");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("serves hashed assets as immutable, with their type, and nothing outside assets/", async () => {
    const asset = await built.request("/dashboard/assets/main-ABC123.js");
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(await asset.text()).toBe("console.log(1)");
    const nothing = await built.request("/dashboard/assets/nothing-here.js");
    expect(nothing.status).toBe(404);
    expect(await nothing.json()).toMatchObject({ error: { code: "not_found", type: "not_found_error" } });
    expect((await built.request("/dashboard/assets/..%2Fsecret.txt")).status).toBe(404);
    expect((await built.request("/dashboard/assets/..%2Findex.html")).status).toBe(404);
  });

  it("says how to build the bundle when it is missing", async () => {
    const response = await missing.request("/");
    expect(response.status).toBe(503);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await response.text()).toContain("npm run build:dashboard");
  });

  it("serves Scalar's browser bundle for /docs", async () => {
    const response = await built.request(SCALAR_BUNDLE_PATH);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect((await response.text()).length).toBeGreaterThan(100_000);
  });
});
