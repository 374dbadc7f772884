import type { LLMock } from "@copilotkit/aimock";
import { mkdir } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startGateway, startUpstream, storedLog, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { launchChromium } from "./support/chromium.ts";

/**
 * The prompt playground in Debian's Chromium against a real gateway, aimock upstream: an edit
 * of the template run streamed before it is saved, two models and versions side by side, a
 * new version saved and the staging label moved (as the API then answers), the diff of the two
 * versions, and the gateway's refusals shown. Screenshots go to test-artifacts/dashboard/.
 */
const ARTIFACTS = "test-artifacts/dashboard";

let gateway: RunningGateway;
let upstream: LLMock;
let browser: Browser;
let virtualKey: string;
let virtualKeyId: string;
let promptId: string;
let serviceKey: string;

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  [upstream, gateway, browser] = await Promise.all([startUpstream(), startGateway(), launchChromium()]);
  upstream.on({ model: "refused-model" }, { error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" }, status: 401 });
  // The answer names the model and the last message as the upstream received them, a few characters a chunk.
  upstream.on(
    { predicate: () => true },
    (request) => {
      const last = request.messages.at(-1)?.content;
      return { content: `${request.model} answers: ${typeof last === "string" ? last : ""}`, usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } };
    },
    { chunkSize: 6, latency: 25 },
  );
  const key = await call(gateway, "POST", "/v1/virtual-keys", { body: { name: "playground", provider: "openai", key: UPSTREAM_KEY, custom_host: `${upstream.url}/v1` } });
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  virtualKey = key.body.slug;
  virtualKeyId = key.body.id;
  const prompt = await call(gateway, "POST", "/v1/prompts", {
    body: { name: "support reply", model: "gpt-4o-mini", virtual_key: virtualKey, messages: [{ role: "system", content: "You are brief." }, { role: "user", content: "Greet {{name}}." }], hyperparameters: { temperature: 0.3 } },
  });
  expect(prompt.status, JSON.stringify(prompt.body)).toBe(201);
  promptId = prompt.body.id;
  serviceKey = (await call(gateway, "POST", "/v1/api-keys", { body: { name: "runner", role: "service" } })).body.key;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await upstream?.stop();
});

async function signIn(key: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 1000 } })).newPage();
  await page.goto(`${gateway.url}/`);
  await page.getByLabel("Gateway key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
  return page;
}

const answer = (page: Page, label: string) => page.getByLabel(`Answer ${label}`);

/** Waits until a run's facts (shown once it ended) are there, and returns its answer. */
async function finished(page: Page, label: string): Promise<string> {
  await page.getByTestId(`facts-${label}`).waitFor({ timeout: 15_000 });
  return (await answer(page, label).textContent()) ?? "";
}

describe("the prompt playground in Chromium", () => {
  it("runs an edited template streamed, saves it as a new version, moves staging to it and shows the diff", async () => {
    const page = await signIn(gateway.adminKey);
    await page.getByRole("link", { name: "Prompts" }).click();
    await page.getByTestId("prompts").getByRole("link", { name: "support reply" }).click();
    await page.getByLabel("Message 2 content").waitFor();
    expect(await page.getByLabel("Provider or @virtual key").inputValue()).toBe(`@${virtualKey}`);

    await page.getByLabel("Message 2 content").fill("Welcome {{name}} to {{place}}.");
    await page.getByTestId("unsaved").waitFor();
    await page.getByLabel("name", { exact: true }).fill("Ada");
    await page.getByLabel("place", { exact: true }).fill("Paris");
    // Every text the answer shows while it streams in.
    await page.evaluate(() => {
      const seen: string[] = ((window as unknown as { seen: string[] }).seen = []);
      new MutationObserver(() => {
        const text = document.querySelector('[aria-label="Answer edit"]')?.textContent ?? "";
        if (seen.at(-1) !== text) seen.push(text);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await page.getByRole("button", { name: "Run", exact: true }).click();
    expect(await finished(page, "edit")).toBe("gpt-4o-mini answers: Welcome Ada to Paris.");
    const partial = (await page.evaluate(() => (window as unknown as { seen: string[] }).seen)).filter((text) => text.startsWith("gpt-4o-mini") && text !== "gpt-4o-mini answers: Welcome Ada to Paris.");
    expect(partial.length).toBeGreaterThan(1);
    const facts = await page.getByTestId("facts-edit").textContent();
    expect(facts).toContain("200");
    expect(facts).toContain("11 in · 7 out tokens");
    // The run is a logged, streamed chat completion with the edit's parameters.
    const logId = (await page.getByTestId("facts-edit").getByRole("link", { name: "log" }).getAttribute("href"))!.split("/").pop()!;
    const log = await storedLog(gateway, logId);
    expect(log).toMatchObject({ virtualKeyId, stream: true, status: 200 });
    expect(log.requestBody).toContain('"temperature":0.3');
    await page.screenshot({ path: `${ARTIFACTS}/40-playground-run.png`, fullPage: true });

    await page.getByRole("button", { name: "Save as new version" }).click();
    await page.getByRole("status").filter({ hasText: "Saved as v2" }).waitFor();
    const labels = page.getByRole("form", { name: "Move a label" });
    await labels.getByLabel("Label").fill("staging");
    await labels.getByLabel("Version").selectOption("2");
    await labels.getByRole("button", { name: "Move label" }).click();
    await page.locator("[data-testid=labels] li[data-label=staging]").filter({ hasText: "on v2" }).waitFor();

    const prompt = await call(gateway, "GET", `/v1/prompts/${promptId}`);
    expect(prompt.body).toMatchObject({ versions_count: 2, default_version: 1, labels: { production: 1, staging: 2 } });
    const versions = (await call(gateway, "GET", `/v1/prompts/${promptId}/versions`)).body.data;
    expect(versions[0]).toMatchObject({ version: 2, labels: ["staging"], virtual_key: virtualKey, model: "gpt-4o-mini", hyperparameters: { temperature: 0.3 } });
    expect(versions[0].messages[1]).toEqual({ role: "user", content: "Welcome {{name}} to {{place}}." });

    // The diff of v1 and v2, as the gateway computes it.
    const diff = page.getByTestId("diff-messages");
    await diff.waitFor();
    expect(await diff.locator("[data-status=changed] .removed").textContent()).toContain("Greet {{name}}.");
    expect(await diff.locator("[data-status=changed] .added").textContent()).toContain("Welcome {{name}} to {{place}}.");
    await page.screenshot({ path: `${ARTIFACTS}/41-playground-saved.png`, fullPage: true });
  });

  it("runs a version and the edit on two models side by side, on the same variables", async () => {
    const page = await signIn(gateway.adminKey);
    await page.goto(`${gateway.url}/#/prompts/${promptId}`);
    await page.getByLabel("Message 2 content").waitFor();
    await page.getByLabel("Side by side").check();
    const sideB = page.getByRole("region", { name: "Side B" });
    await sideB.getByLabel("Template").selectOption("2");
    await sideB.getByLabel("Model").fill("gpt-4o");
    await page.getByLabel("name", { exact: true }).fill("Grace");
    await page.getByLabel("place", { exact: true }).fill("Oslo");
    await page.getByRole("button", { name: "Run both" }).click();
    // A: the edit, loaded from production (v1), on the prompt's model; B: v2 run by the gateway on gpt-4o.
    expect(await finished(page, "A")).toBe("gpt-4o-mini answers: Greet Grace.");
    expect(await finished(page, "B")).toBe("gpt-4o answers: Welcome Grace to Oslo.");
    const logOf = async (label: string) => {
      const link = await page.getByTestId(`facts-${label}`).getByRole("link", { name: "log" }).getAttribute("href");
      return storedLog(gateway, link!.split("/").pop()!);
    };
    expect(await logOf("B")).toMatchObject({ promptId, promptVersion: 2, model: "gpt-4o" });
    expect(await logOf("A")).toMatchObject({ model: "gpt-4o-mini" });
    await page.screenshot({ path: `${ARTIFACTS}/42-playground-side-by-side.png`, fullPage: true });
  });

  it("shows the refusals: an unknown virtual key, a save the gateway rejects, an upstream's 401, a template that does not parse", async () => {
    const page = await signIn(gateway.adminKey);
    await page.goto(`${gateway.url}/#/prompts/${promptId}`);
    await page.getByLabel("Message 2 content").waitFor();
    await page.getByLabel("name", { exact: true }).fill("Ada");
    await page.getByLabel("Provider or @virtual key").fill("@vk-missing-00000000");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    const refusal = page.getByTestId("output-edit").getByRole("alert");
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/^Error 4\d\d .*vk-missing-00000000/);
    // The gateway refuses to save a version naming it, and says which field.
    await page.getByRole("button", { name: "Save as new version" }).click();
    await expect(page.locator(".panel", { hasText: "Save as new version" }).getByRole("alert").textContent()).resolves.toMatch(/^Error 400 .*virtual/i);
    expect((await call(gateway, "GET", `/v1/prompts/${promptId}`)).body.versions_count).toBe(2);

    // A provider target with the upstream key typed in: the upstream's 401 is shown, and the dashboard stays signed in.
    await page.getByLabel("Provider or @virtual key").fill("openai");
    await page.getByLabel("Upstream key").fill(UPSTREAM_KEY);
    await page.getByLabel("Custom host").fill(`${upstream.url}/v1`);
    await page.getByLabel("Model").fill("refused-model");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await page.getByTestId("facts-edit").waitFor();
    expect(await page.getByTestId("output-edit").getByRole("alert").textContent()).toBe("Error 401 Incorrect API key provided");
    expect(await page.getByTestId("role").textContent()).toContain("admin");
    await page.getByLabel("Model").fill("gpt-4o-mini");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    expect(await finished(page, "edit")).toBe("gpt-4o-mini answers: Greet Ada.");

    await page.getByLabel("Message 2 content").fill("Greet {{#name}.");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await expect(page.getByTestId("output-edit").getByRole("alert").textContent()).resolves.toContain("messages.1.content: Mustache syntax error");
    await page.screenshot({ path: `${ARTIFACTS}/43-playground-refusals.png`, fullPage: true });
  });

  it("lets a service key run the edit but not save it", async () => {
    const page = await signIn(serviceKey);
    await page.goto(`${gateway.url}/#/prompts/${promptId}`);
    await page.getByLabel("Message 2 content").waitFor();
    await page.getByLabel("Message 2 content").fill("Thank {{name}}.");
    await page.getByLabel("name", { exact: true }).fill("Linus");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    expect(await finished(page, "edit")).toBe("gpt-4o-mini answers: Thank Linus.");
    expect(await page.getByRole("button", { name: "Save as new version" }).count()).toBe(0);
    expect(await page.getByRole("form", { name: "Move a label" }).count()).toBe(0);
  });
});
