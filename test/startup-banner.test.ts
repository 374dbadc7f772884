import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "./support/harness.ts";

/**
 * `npm start`'s banner says where the gateway listens and, when that is not loopback, that other
 * machines can reach it, next to the admin key it prints on first start.
 */
const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function banner(host: string): Promise<{ stdout: string; port: number }> {
  const dir = mkdtempSync(join(tmpdir(), "gateway-banner-"));
  dirs.push(dir);
  const port = await freePort();
  const child = spawn("node_modules/.bin/bun", ["src/server/bun.ts"], {
    env: { ...process.env, PORT: String(port), HOST: host, GATEWAY_DATABASE_URL: `file:${join(dir, "gateway.db")}`, GATEWAY_DATA_DIR: dir, GATEWAY_ADMIN_KEY: "", GATEWAY_QUIET: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout?.on("data", (data) => (stdout += String(data)));
  const exited = new Promise((resolve) => child.on("exit", resolve));
  for (let attempt = 0; attempt < 300 && !stdout.includes("-d '{"); attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
  // Reachable from this machine at the printed URL.
  const health = await fetch(`http://127.0.0.1:${port}/health`).then((response) => response.status, () => 0);
  child.kill("SIGTERM");
  await exited;
  expect(health).toBe(200);
  return { stdout, port };
}

describe("npm start's banner", () => {
  it("on every interface (HOST=0.0.0.0) says so next to the admin key, and how to keep it local", async () => {
    const { stdout, port } = await banner("0.0.0.0");
    const lines = stdout.split("\n");
    expect(lines[0]).toMatch(new RegExp(`listening on 0\\.0\\.0\\.0:${port} \\(Bun `));
    const warning = lines.findIndex((line) => line.startsWith("Not loopback: listening on every network interface"));
    const key = lines.findIndex((line) => /^\s+gw_[A-Za-z0-9_-]+$/.test(line));
    expect(warning).toBeGreaterThan(0);
    expect(key).toBeGreaterThan(warning);
    expect(key - warning).toBeLessThanOrEqual(4);
    expect(stdout).toContain("Set HOST=127.0.0.1");
    expect(stdout).toContain(`curl http://localhost:${port}/v1/chat/completions`);
  }, 30_000);

  it("on loopback (HOST=127.0.0.1) prints the address and no warning", async () => {
    const { stdout, port } = await banner("127.0.0.1");
    expect(stdout.split("\n")[0]).toMatch(new RegExp(`listening on 127\\.0\\.0\\.1:${port} `));
    expect(stdout).not.toContain("Not loopback");
    expect(stdout).toContain(`curl http://127.0.0.1:${port}/v1/chat/completions`);
  }, 30_000);
});

describe("npm start when a store cannot be reached", () => {
  it("says in one line why the gateway could not start, names no password, and exits 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gateway-start-"));
    dirs.push(dir);
    const child = spawn("node_modules/.bin/bun", ["src/server/bun.ts"], {
      env: {
        ...process.env,
        PORT: String(await freePort()),
        GATEWAY_DATABASE_URL: `file:${join(dir, "gateway.db")}`,
        GATEWAY_DATA_DIR: dir,
        GATEWAY_LOG_STORE_URL: `http://admin:hunter2-secret@127.0.0.1:${await freePort()}/logs`,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout?.on("data", (data) => (output += String(data)));
    child.stderr?.on("data", (data) => (output += String(data)));
    const code = await new Promise((resolve) => child.on("exit", resolve));
    expect(code).toBe(1);
    expect(output.trim()).toMatch(/^The gateway could not start: the ClickHouse log store at http:\/\/127\.0\.0\.1:\d+\/logs as admin did not answer/);
    expect(output.trim().split("\n")).toHaveLength(1);
    expect(output).not.toContain("hunter2-secret");
  }, 30_000);
});
