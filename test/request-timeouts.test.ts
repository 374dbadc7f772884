import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { call, startGateway, startUpstream, upstreamHeaders, type RunningGateway } from "./support/harness.ts";

let gateway: RunningGateway;
let upstream: LLMock;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("steady answer", { content: "in time" }, { chaos: { latencyMs: 150 } });
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
});

const chat = (headers: Record<string, string> = {}) =>
  call(gateway, "POST", "/v1/chat/completions", {
    body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "steady answer" }] },
    headers: { ...upstreamHeaders(gateway, upstream), ...headers },
  });

describe("request timeouts", () => {
  // Spaces around a header value are not part of it in HTTP (clients trim them), so the space is inside.
  it.each(["2147483648", "99999999999", "3600001", "0x10", "10 0", "1e3", "+5000", "0"])(
    "refuses x-gateway-request-timeout: %j with a 400 naming the header",
    async (value) => {
      const response = await chat({ "x-gateway-request-timeout": value });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: "invalid_request", param: "x-gateway-request-timeout" });
      expect(response.body.error.message).toContain("3600000");
    },
  );

  it("accepts the documented maximum and waits for the answer", async () => {
    const response = await chat({ "x-gateway-request-timeout": "3600000" });
    expect(response.status).toBe(200);
    expect(response.body.choices[0].message.content).toBe("in time");
  });

  it.each([
    [{ request_timeout: 99_999_999_999 }, "config.request_timeout"],
    [{ request_timeout: 2_147_483_648 }, "config.request_timeout"],
    [{ targets: [{ provider: "openai", request_timeout: 3_600_001 }] }, "config.targets.0.request_timeout"],
  ])("refuses a stored config with %j", async (config, param) => {
    const response = await call(gateway, "POST", "/v1/configs", { body: { name: "slow", config } });
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe(param);
  });

  it.each([
    [{ request_timeout: 99_999_999_999 }, "x-gateway-config.request_timeout"],
    [{ targets: [{ provider: "openai", request_timeout: 2_147_483_648 }] }, "x-gateway-config.targets.0.request_timeout"],
  ])("refuses an inline config with %j", async (config, param) => {
    const response = await chat({ "x-gateway-config": JSON.stringify(config) });
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe(param);
  });

  it("runs a stored config whose request_timeout is the maximum without timing out at once", async () => {
    const created = await call(gateway, "POST", "/v1/configs", { body: { name: "hour", config: { request_timeout: 3_600_000 } } });
    expect(created.status).toBe(201);
    const response = await chat({ "x-gateway-config": created.body.slug });
    expect(response.status).toBe(200);
  });
});

describe("x-gateway-request-timeout on a prompt run", () => {
  it("is read as strictly as on chat completions", async () => {
    const prompt = await call(gateway, "POST", "/v1/prompts", {
      body: { name: "steady", model: "gpt-4o-mini", provider: "openai", messages: [{ role: "user", content: "steady answer" }] },
    });
    expect(prompt.status).toBe(201);
    const run = (timeout: string) =>
      call(gateway, "POST", `/v1/prompts/${prompt.body.id}/completions`, {
        body: { variables: {} },
        headers: { "x-gateway-custom-host": `${upstream.url}/v1`, authorization: "Bearer sk-test", "x-gateway-request-timeout": timeout },
      });
    for (const bad of ["2147483648", "1e3", "+5000"]) {
      const response = await run(bad);
      expect(response.status).toBe(400);
      expect(response.body.error.param).toBe("x-gateway-request-timeout");
    }
    expect((await run("3600000")).status).toBe(200);
  });
});

describe("GATEWAY_REQUEST_TIMEOUT_MS", () => {
  it.each(["2147483648", "0x10", "1e3"])("stops the Bun entry point at start-up for %j, naming the variable without a stack", (value) => {
    const started = spawnSync("node_modules/.bin/bun", ["src/server/bun.ts"], {
      env: { ...process.env, GATEWAY_REQUEST_TIMEOUT_MS: value, PORT: "0", HOST: "127.0.0.1", GATEWAY_DATABASE_URL: "file:/nonexistent/never-opened.db" },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(started.status).toBe(1);
    expect(started.stderr).toContain("GATEWAY_REQUEST_TIMEOUT_MS: must be");
    expect(started.stderr).not.toContain("at loadConfig");
  });
});
