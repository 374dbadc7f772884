import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { spawn } from "node:child_process";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";
import { freePort, startUpstream } from "./support/harness.ts";

let upstream: LLMock;
const databaseUrl = sqliteTestUrl();

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("hello", { content: "Hello from Node" });
});

afterAll(async () => {
  await upstream?.stop();
  await removeSqliteTestDatabase(databaseUrl);
});

describe("the Node entry point (npm run start:node)", () => {
  it("starts, prints the first-call banner with a bootstrap key, serves a chat completion and stops on SIGTERM", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ["--import", "tsx", "src/server/node.ts"], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        GATEWAY_DATABASE_URL: databaseUrl,
        GATEWAY_DATA_DIR: databaseUrl.slice("file:".length).replace(/\/[^/]+$/, ""),
        GATEWAY_ADMIN_KEY: "",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout?.on("data", (data) => (stdout += String(data)));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    for (let attempt = 0; attempt < 200 && !stdout.includes("First call"); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(stdout).toContain(`http://127.0.0.1:${port}`);
    expect(stdout).toContain("Node v20");
    const key = /^\s+(gw_[A-Za-z0-9_-]+)$/m.exec(stdout)?.[1];
    expect(key).toBeDefined();

    const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: "POST",
      headers: {
        "x-gateway-api-key": key!,
        "x-gateway-provider": "openai",
        "x-gateway-custom-host": `${upstream.url}/v1`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] }),
    });
    expect(response.status).toBe(200);
    expect((await response.json()).choices[0].message.content).toBe("Hello from Node");
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 30_000);
});
