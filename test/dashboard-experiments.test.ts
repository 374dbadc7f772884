import type { LLMock } from "@copilotkit/aimock";
import { mkdir } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startGateway, startUpstream, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { launchChromium } from "./support/chromium.ts";
import { ms, percent } from "../dashboard/lib/format.ts";
import { changeFormat } from "../dashboard/lib/experiment-format.ts";
import type { MetricComparison } from "../dashboard/lib/types.ts";

/**
 * The dashboard's Experiments view in Debian's Chromium against a real gateway, aimock upstream:
 * a running experiment (made through the API) with its variants and its results after real
 * traffic and feedback, as the results API answers them, and an experiment whose guard stopped
 * it, with the reason. Screenshots go to test-artifacts/dashboard/.
 */
const ARTIFACTS = "test-artifacts/dashboard";

let gateway: RunningGateway;
let upstream: LLMock;
let browser: Browser;
let virtualKey: string;

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  [upstream, gateway, browser] = await Promise.all([startUpstream(), startGateway({ GATEWAY_EXPERIMENT_GUARD_MIN_INTERVAL_MS: 0 }), launchChromium()]);
  // The treatment of the guarded experiment asks for a model the upstream fails every time.
  upstream.on({ model: "broken-model" }, { error: { message: "broken-model is down", type: "server_error" }, status: 500 });
  // Every tenth end user's request fails, in both arms.
  upstream.on({ predicate: (request) => String((request as { user?: string }).user).endsWith("-err") }, { error: { message: "overloaded", type: "server_error" }, status: 500 });
  upstream.on({ predicate: () => true }, { content: "fine", usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 } });
  const key = await call(gateway, "POST", "/v1/virtual-keys", { body: { name: "experiments", provider: "openai", key: UPSTREAM_KEY, custom_host: `${upstream.url}/v1` } });
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  virtualKey = key.body.slug;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await upstream?.stop();
});

/** A started experiment, and the config whose requests join it. */
async function runningExperiment(body: Record<string, unknown>): Promise<{ id: string; config: string }> {
  const created = await call(gateway, "POST", "/v1/experiments", { body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const config = await call(gateway, "POST", "/v1/configs", { body: { name: `${body.name} config`, config: { virtual_key: virtualKey, experiment: created.body.id } } });
  expect(config.status, JSON.stringify(config.body)).toBe(201);
  const started = await call(gateway, "PATCH", `/v1/experiments/${created.body.id}`, { body: { status: "running" } });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  return { id: created.body.id, config: config.body.slug };
}

const chat = (config: string, user: string) =>
  call(gateway, "POST", "/v1/chat/completions", { body: { model: "gpt-4o-mini", user, messages: [{ role: "user", content: "hello" }] }, headers: { "x-gateway-config": config } });

async function signIn(): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1500, height: 1000 } })).newPage();
  await page.goto(`${gateway.url}/`);
  await page.getByLabel("Gateway key").fill(gateway.adminKey);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
  return page;
}

describe("the Experiments view in Chromium", () => {
  it("shows a running experiment's variants and its results after traffic, as the results API answers them", async () => {
    const { id, config } = await runningExperiment({
      name: "gpt-4o trial",
      assignment: "request",
      variants: [{ name: "control", weight: 1 }, { name: "gpt-4o", weight: 1, model: "gpt-4o" }],
      guards: [{ metric: "latency", tolerance: 9 }],
    });
    for (let i = 0; i < 100; i++) {
      const answer = await chat(config, i % 10 === 0 ? `user-${i}-err` : `user-${i}`);
      expect(answer.status).toBe(i % 10 === 0 ? 500 : 200);
      expect((await call(gateway, "POST", "/v1/feedback", { body: { trace_id: answer.headers.get("x-gateway-trace-id"), value: i % 3 === 0 ? 0 : 1 } })).status).toBe(201);
    }
    await gateway.flushLogs();
    const results = (await call(gateway, "GET", `/v1/experiments/${id}/results`)).body;
    const served = results.variants.map((variant: { requests: number }) => variant.requests);
    expect(served.reduce((sum: number, count: number) => sum + count, 0)).toBe(100);
    expect(Math.min(...served)).toBeGreaterThanOrEqual(20);

    const page = await signIn();
    await page.getByRole("link", { name: "Experiments" }).click();
    const row = page.locator(`[data-testid=experiments] tr[data-experiment="${id}"]`);
    expect(await row.textContent()).toMatch(/gpt-4o trial.*running.*control 50 %, gpt-4o 50 %.*request.*latency/);
    await row.getByRole("link", { name: "gpt-4o trial" }).click();

    await page.getByTestId("variant-results").waitFor();
    expect(await page.getByTestId("experiment-status").textContent()).toBe("running");
    expect(await page.locator("[data-testid=variants] tr[data-variant=gpt-4o]").textContent()).toMatch(/gpt-4o\s*50 %\s*model gpt-4o/);
    expect(await page.getByTestId("guards").textContent()).toContain("latency at most 900 % slower");
    for (const variant of results.variants) {
      const cells = page.locator(`[data-testid=variant-results] tr[data-variant="${variant.variant}"]`);
      expect(await cells.locator("td.num").textContent()).toBe(String(variant.requests));
      const errorRate = await cells.locator("td[data-column='Error rate']").textContent();
      expect(errorRate).toContain(`${percent(variant.error_rate.value)} [${percent(variant.error_rate.low)}, ${percent(variant.error_rate.high)}]`);
      expect(await cells.locator("td[data-column='Feedback mean']").textContent()).toContain(`${variant.feedback.count} scores`);
      expect(await cells.locator("td[data-column='Latency p95']").textContent()).toContain(`${ms(variant.latency_ms.p95.value)} [${ms(variant.latency_ms.p95.low)}, ${ms(variant.latency_ms.p95.high)}]`);
    }
    // The treatment against the control: each metric's change with its always-valid interval, p-value and verdict.
    const comparison = page.getByTestId("comparison-gpt-4o");
    const measured = results.comparisons[0].metrics.filter((metric: MetricComparison) => metric.value !== null);
    expect(measured.map((metric: MetricComparison) => metric.metric)).toEqual(expect.arrayContaining(["error_rate", "latency", "feedback_score"]));
    for (const metric of results.comparisons[0].metrics as MetricComparison[]) {
      const line = await comparison.locator(`tr[data-metric=${metric.metric}]`).textContent();
      expect(line).toContain(metric.verdict.replace("_", " "));
      if (metric.value === null) continue;
      const format = changeFormat(metric.metric);
      expect(line).toContain(`${format(metric.value)} [${format(metric.low!)}, ${format(metric.high!)}]`);
      expect(line).toContain(metric.p_value! < 0.0001 ? "< 0.0001" : metric.p_value!.toFixed(4));
    }
    expect(await comparison.locator("tr[data-metric=latency]").textContent()).toMatch(/×10\.00\s*within/);
    expect(await page.getByTestId("method").textContent()).toContain(results.method);
    expect(await page.getByTestId("stop-reason").count()).toBe(0);
    await page.screenshot({ path: `${ARTIFACTS}/50-experiment-running.png`, fullPage: true });

    // A variant's request count opens its logs; a log names the experiment and variant that served it.
    await page.locator("[data-testid=variant-results] tr[data-variant=gpt-4o] td.num a").click();
    await page.waitForURL(/experiment_variant=gpt-4o/);
    await page.locator("[data-testid=logs-table] tbody tr").first().click();
    const request = page.getByRole("region", { name: "Request", exact: true });
    await request.waitFor();
    expect(await request.textContent()).toContain(`Experiment${id} · gpt-4o`);
  });

  it("says why an experiment stopped itself: the guard, the variant and the change measured", async () => {
    const { id, config } = await runningExperiment({
      name: "broken canary",
      assignment: "request",
      variants: [{ name: "control", weight: 1 }, { name: "broken", weight: 1, model: "broken-model" }],
      guards: [{ metric: "error_rate", tolerance: 0.05 }],
    });
    let status = "running";
    for (let sent = 0; status === "running" && sent < 200; sent++) {
      await chat(config, `guarded-${sent}`);
      await gateway.flushLogs();
      await gateway.gateway.deps.experimentGuards.settled();
      status = (await call(gateway, "GET", `/v1/experiments/${id}`)).body.status;
    }
    expect(status).toBe("stopped");
    const stopped = (await call(gateway, "GET", `/v1/experiments/${id}`)).body;

    const page = await signIn();
    await page.goto(`${gateway.url}/#/experiments?status=stopped`);
    expect(await page.locator(`[data-testid=experiments] tr[data-experiment="${id}"]`).textContent()).toContain("Stopped by its guard on error rate: variant broken crossed it");
    await page.goto(`${gateway.url}/#/experiments/${id}`);
    const reason = page.getByTestId("stop-reason");
    await reason.waitFor();
    const text = await reason.textContent();
    expect(text).toContain("Stopped by its guard on error rate: variant broken crossed it");
    expect(text).toContain(stopped.stop_reason.detail);
    expect(text).toContain("the guard tolerates error rate up by at most 5.0 points");
    expect(await page.getByTestId("experiment-status").textContent()).toBe("stopped");
    await page.getByTestId("variant-results").waitFor();
    expect(await page.getByTestId("comparison-broken").locator("tr[data-metric=error_rate]").textContent()).toMatch(/worse.*crossed/);
    await page.screenshot({ path: `${ARTIFACTS}/51-experiment-stopped.png`, fullPage: true });
  });
});
