import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { DEFAULT_WORKSPACE_ID } from "../src/control-plane/auth-context.ts";
import { gatewayContractProblems } from "./support/contract.ts";
import { call, startGateway, startUpstream, storedLog, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";

/** Prompt labels (…/labels/{label}), runs by label and by a config's `prompt_label`, and the diff of two versions. */

let gateway: RunningGateway;
let upstream: LLMock;
let virtualKey: string;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage(/.*/, { content: "answered" });
  gateway = await startGateway();
  const key = await call(gateway, "POST", "/v1/virtual-keys", { body: { name: "labels", provider: "openai", key: UPSTREAM_KEY, custom_host: `${upstream.url}/v1` } });
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  virtualKey = key.body.slug;
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
});

function expectContract(operationId: string, response: { status: number; body: unknown }): void {
  expect(gatewayContractProblems(operationId, response.status, response.body), operationId).toEqual([]);
}

function expectError(response: { status: number; body: any }, status: number, param: string): void {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.error).toMatchObject({ param });
}

/** A prompt with three versions whose system messages say which version they are. */
async function threeVersions(): Promise<string> {
  const created = await call(gateway, "POST", "/v1/prompts", {
    body: { name: "labelled", model: "gpt-4o-mini", virtual_key: virtualKey, messages: [{ role: "system", content: "v1" }, { role: "user", content: "{{q}}" }] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  for (const content of ["v2", "v3"]) {
    const added = await call(gateway, "PUT", `/v1/prompts/${created.body.id}`, { body: { messages: [{ role: "system", content }, { role: "user", content: "{{q}}" }] } });
    expect(added.status).toBe(200);
  }
  return created.body.id;
}

const label = (id: string, name: string, body: unknown) => call(gateway, "PUT", `/v1/prompts/${id}/labels/${name}`, { body });

/** The version a run rendered, read from its log. */
async function ranVersion(id: string, query = "", headers: Record<string, string> = {}): Promise<number | null> {
  const ran = await call(gateway, "POST", `/v1/prompts/${id}/completions${query}`, { body: { variables: { q: "hi" } }, headers });
  expect(ran.status, JSON.stringify(ran.body)).toBe(200);
  return (await storedLog(gateway, ran.headers.get("x-gateway-log-id")!)).promptVersion;
}

describe("prompt labels", () => {
  it("a new prompt's version 1 is production; labels move between versions and show on the prompt and its versions", async () => {
    const id = await threeVersions();
    const prompt = await call(gateway, "GET", `/v1/prompts/${id}`);
    expect(prompt.body.labels).toEqual({ production: 1 });

    const staged = await label(id, "staging", { version: 3 });
    expect(staged.status, JSON.stringify(staged.body)).toBe(200);
    expectContract("movePromptLabel", staged);
    expect(staged.body).toMatchObject({ default_version: 1, labels: { production: 1, staging: 3 } });
    const moved = await label(id, "staging", { version: 2 });
    expect(moved.body.labels).toEqual({ production: 1, staging: 2 });

    const versions = await call(gateway, "GET", `/v1/prompts/${id}/versions`);
    expect(versions.body.data.map((version: { version: number; labels: string[] }) => [version.version, version.labels])).toEqual([
      [3, []],
      [2, ["staging"]],
      [1, ["production"]],
    ]);

    // Moving production publishes, audited as a publish; any other label as a label move.
    const published = await label(id, "production", { version: 3 });
    expect(published.body).toMatchObject({ default_version: 3, labels: { production: 3, staging: 2 } });
    const events = await call(gateway, "GET", `/v1/audit-events?resource_id=${id}`);
    expect(events.status, JSON.stringify(events.body)).toBe(200);
    const actions = events.body.data.map((event: { action: string }) => event.action);
    expect(actions.filter((action: string) => action === "prompt.label_moved")).toHaveLength(2);
    expect(actions).toContain("prompt.published");
    const move = events.body.data.find((event: { action: string }) => event.action === "prompt.label_moved");
    expect(move.after.labels.staging).not.toBe(move.before.labels?.staging);

    const removed = await call(gateway, "DELETE", `/v1/prompts/${id}/labels/staging`);
    expect(removed.status).toBe(200);
    expectContract("deletePromptLabel", removed);
    expect(removed.body.labels).toEqual({ production: 3 });
  });

  it("a run renders ?label's version, a config's prompt_label's, or production's", async () => {
    const id = await threeVersions();
    await label(id, "staging", { version: 2 });
    await label(id, "canary", { version: 3 });
    expect(await ranVersion(id)).toBe(1);
    expect(await ranVersion(id, "?label=staging")).toBe(2);
    expect(await ranVersion(id, "?version=3")).toBe(3);
    const rendered = await call(gateway, "POST", `/v1/prompts/${id}/render?label=canary`, { body: { variables: { q: "x" } } });
    expect(rendered.body).toMatchObject({ version: 3, request: { messages: [{ role: "system", content: "v3" }, { role: "user", content: "x" }] } });

    const staging = await call(gateway, "POST", "/v1/configs", { body: { name: "staging env", config: { prompt_label: "staging" } } });
    expect(staging.status, JSON.stringify(staging.body)).toBe(201);
    expect(await ranVersion(id, "", { "x-gateway-config": staging.body.slug })).toBe(2);
    // The run's own label wins over the config's; a prompt without the config's label runs production.
    expect(await ranVersion(id, "?label=canary", { "x-gateway-config": staging.body.slug })).toBe(3);
    expect(await ranVersion(id, "", { "x-gateway-config": JSON.stringify({ prompt_label: "nowhere" }) })).toBe(1);

    // A label move reaches the next run at once (the cache is told).
    await label(id, "staging", { version: 3 });
    expect(await ranVersion(id, "", { "x-gateway-config": staging.body.slug })).toBe(3);
  });

  it("refuses bad input naming the field", async () => {
    const id = await threeVersions();
    expectError(await label(id, "staging", { version: 9 }), 400, "version");
    expectError(await label(id, "staging", {}), 400, "version");
    expectError(await label(id, "bad label!", { version: 1 }), 400, "label");
    expectError(await label(id, "-leading", { version: 1 }), 400, "label");
    expectError(await label("00000000-0000-4000-8000-00000000abcd", "staging", { version: 1 }), 404, "id");
    expectError(await call(gateway, "DELETE", `/v1/prompts/${id}/labels/production`), 400, "label");
    expectError(await call(gateway, "DELETE", `/v1/prompts/${id}/labels/never`), 404, "label");
    expectError(await call(gateway, "POST", `/v1/prompts/${id}/completions?label=never`, { body: { variables: { q: "x" } } }), 404, "label");
    expectError(await call(gateway, "POST", `/v1/prompts/${id}/completions?label=production&version=1`, { body: { variables: { q: "x" } } }), 400, "label");
    expectError(await call(gateway, "POST", "/v1/configs", { body: { name: "bad", config: { prompt_label: "no spaces" } } }), 400, "config.prompt_label");
    // Nothing moved.
    expect((await call(gateway, "GET", `/v1/prompts/${id}`)).body.labels).toEqual({ production: 1 });
  });

  it("a service key may run by label but not move one", async () => {
    const id = await threeVersions();
    const member = await call(gateway, "POST", "/v1/api-keys", { body: { name: "service", role: "service", workspace_id: DEFAULT_WORKSPACE_ID } });
    expect(member.status, JSON.stringify(member.body)).toBe(201);
    const refused = await call(gateway, "PUT", `/v1/prompts/${id}/labels/staging`, { body: { version: 2 }, key: member.body.key });
    expect(refused.status).toBe(403);
    expect((await call(gateway, "POST", `/v1/prompts/${id}/completions?label=production`, { body: { variables: { q: "x" } }, key: member.body.key })).status).toBe(200);
    const removed = await call(gateway, "DELETE", `/v1/prompts/${id}/labels/production`, { key: member.body.key });
    expect(removed.status).toBe(403);
  });
});

describe("the diff of two versions", () => {
  it("lists changed fields and hyperparameters, and messages line by line", async () => {
    const created = await call(gateway, "POST", "/v1/prompts", {
      body: {
        name: "diffed",
        model: "gpt-4o-mini",
        provider: "openai",
        hyperparameters: { temperature: 0.2, top_p: 1 },
        messages: [{ role: "system", content: "Be brief.\nAnswer in {{language}}.\nSign off." }, { role: "user", content: "{{q}}" }],
      },
    });
    const id = created.body.id;
    await call(gateway, "PUT", `/v1/prompts/${id}`, {
      body: { model: "gpt-4o", hyperparameters: { temperature: 0.7, max_tokens: 50 }, messages: [{ role: "system", content: "Be brief.\nAnswer in {{language}}, kindly.\nSign off." }] },
    });
    const diff = await call(gateway, "GET", `/v1/prompts/${id}/versions/1/diff/2`);
    expect(diff.status, JSON.stringify(diff.body)).toBe(200);
    expectContract("diffPromptVersions", diff);
    expect(diff.body).toMatchObject({ object: "prompt.diff", prompt_id: id, from: 1, to: 2 });
    expect(diff.body.fields).toEqual([
      { field: "model", from: "gpt-4o-mini", to: "gpt-4o" },
      { field: "hyperparameters.max_tokens", from: null, to: 50 },
      { field: "hyperparameters.temperature", from: 0.2, to: 0.7 },
      { field: "hyperparameters.top_p", from: 1, to: null },
    ]);
    expect(diff.body.messages).toEqual([
      {
        index: 0,
        status: "changed",
        role: { from: "system", to: "system" },
        lines: [
          { op: "equal", text: "Be brief." },
          { op: "delete", text: "Answer in {{language}}." },
          { op: "insert", text: "Answer in {{language}}, kindly." },
          { op: "equal", text: "Sign off." },
        ],
      },
      { index: 1, status: "removed", role: { from: "user", to: null }, lines: [{ op: "delete", text: "{{q}}" }] },
    ]);
    const same = await call(gateway, "GET", `/v1/prompts/${id}/versions/2/diff/2`);
    expect(same.body.fields).toEqual([]);
    expect(same.body.messages.map((message: { status: string }) => message.status)).toEqual(["same"]);
    expectError(await call(gateway, "GET", `/v1/prompts/${id}/versions/1/diff/7`), 404, "to");
    expectError(await call(gateway, "GET", `/v1/prompts/${id}/versions/0/diff/1`), 400, "from");
  });
});
