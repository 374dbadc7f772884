import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { openStore } from "../src/store/open-store.ts";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";
import { freePort, startUpstream } from "./support/harness.ts";

let upstream: LLMock;
const databaseUrl = sqliteTestUrl();

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("quick", { content: "fast" });
  upstream.onMessage("slow", { content: "slow but complete answer" }, { latency: 600 });
});

afterAll(async () => {
  await upstream?.stop();
  await removeSqliteTestDatabase(databaseUrl);
});

async function waitForHealth(url: string, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null) throw new Error(`gateway exited early with ${child.exitCode}`);
    const ok = await fetch(`${url}/health`).then((r) => r.ok).catch(() => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("gateway did not become healthy");
}

describe("SIGTERM on a loaded gateway (Bun)", () => {
  it("drains in-flight requests and flushes every pending log before exit", async () => {
    const port = await freePort();
    const adminKey = `shutdown-${randomBytes(12).toString("hex")}`;
    const url = `http://127.0.0.1:${port}`;
    const child = spawn("node_modules/.bin/bun", ["src/server/bun.ts"], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        GATEWAY_DATABASE_URL: databaseUrl,
        GATEWAY_DATA_DIR: databaseUrl.slice("file:".length).replace(/\/[^/]+$/, ""),
        GATEWAY_ADMIN_KEY: adminKey,
        GATEWAY_QUIET: "1",
        // Nothing is written before shutdown unless shutdown flushes it.
        GATEWAY_LOG_FLUSH_INTERVAL_MS: "600000",
        GATEWAY_LOG_BATCH_SIZE: "100000",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr?.on("data", (data) => (stderr += String(data)));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await waitForHealth(url, child);

    const headers = {
      "x-gateway-api-key": adminKey,
      "x-gateway-provider": "openai",
      "x-gateway-custom-host": `${upstream.url}/v1`,
      "content-type": "application/json",
    };
    const body = (content: string, stream: boolean): string => JSON.stringify({ model: "gpt-4o-mini", stream, messages: [{ role: "user", content }] });
    const send = async (content: string, stream: boolean): Promise<boolean> => {
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers,
        body: body(content, stream),
      });
      const text = await response.text();
      return response.status === 200 && (stream ? text.includes("data: [DONE]") : text.includes("choices"));
    };

    for (let i = 0; i < 20; i++) expect(await send("quick", i % 2 === 0)).toBe(true);
    const inFlight = Array.from({ length: 30 }, (_, i) => send("slow", i % 3 === 0));
    await new Promise((resolve) => setTimeout(resolve, 250));
    child.kill("SIGTERM");
    const results = await Promise.all(inFlight);
    const code = await exited;

    expect(stderr).toBe("");
    expect(code).toBe(0);
    // Every request accepted before SIGTERM finished normally, streams included.
    expect(results.filter(Boolean)).toHaveLength(30);
    const store = await openStore(databaseUrl);
    try {
      expect(await store.logs.count()).toBe(50);
      const { records } = await store.logs.list({ workspaceId: "00000000-0000-4000-8000-000000000002", limit: 100 });
      expect(records.filter((record) => record.success)).toHaveLength(50);
      expect(records.filter((record) => record.stream)).toHaveLength(20);
      // Under Bun the log worker builds the records: bodies exact, streams assembled, tokens counted.
      for (const summary of records.filter((record) => record.stream)) {
        const record = await store.logs.get(summary.id, summary.workspaceId);
        const content = JSON.parse(record?.requestBody ?? "{}").messages[0].content as string;
        expect(record?.requestBody).toBe(body(content, true));
        expect(JSON.parse(record?.responseBody ?? "{}").choices[0].message.content).toBe(content === "slow" ? "slow but complete answer" : "fast");
        expect(record?.totalTokens).toBeGreaterThan(0);
        expect(record?.traceId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
      }
    } finally {
      await store.close();
    }
  }, 60_000);
});
