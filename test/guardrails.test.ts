import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { randomUUID } from "node:crypto";
import { DEFAULT_ORGANISATION_ID, DEFAULT_WORKSPACE_ID, OPERATOR_KEY_ID } from "../src/control-plane/auth-context.ts";
import { gatewayContractProblems } from "./support/contract.ts";
import { call, startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";

/** The admin routes of guardrails: /v1/guardrails and /v1/guardrails/{slug}. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const GUARDRAIL_SLUG = /^pg-[a-z0-9]+(-[a-z0-9]+)*-[0-9a-f]{8}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const SHORT = { type: "word_count", params: { max: 50 } };
const NO_SECRETS = { type: "contains", params: { words: ["password"], operator: "none" } };

let gateway: RunningGateway;
let upstream: LLMock;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("hello", { content: "Hello back" });
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
});

function expectContract(operationId: string, response: { status: number; body: unknown }): void {
  expect(gatewayContractProblems(operationId, response.status, response.body), operationId).toEqual([]);
}

async function createGuardrail(body: unknown = { name: "Short answers", checks: [SHORT] }, key?: string): Promise<any> {
  const created = await call(gateway, "POST", "/v1/guardrails", { body, key });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expectContract("createGuardrail", created);
  return created.body;
}

function expectBadRequest(response: { status: number; body: any }, param: string | RegExp): void {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.error.code).toBe("invalid_request");
  if (typeof param === "string") expect(response.body.error.param).toBe(param);
  else expect(response.body.error.param).toMatch(param);
}

const post = (body: unknown, key?: string) => call(gateway, "POST", "/v1/guardrails", { body, key });
const get = (slug: string, key?: string) => call(gateway, "GET", `/v1/guardrails/${slug}`, { key });
const put = (slug: string, body: unknown, key?: string) => call(gateway, "PUT", `/v1/guardrails/${slug}`, { body, key });
const remove = (slug: string, key?: string) => call(gateway, "DELETE", `/v1/guardrails/${slug}`, { key });
const list = (key?: string) => call(gateway, "GET", "/v1/guardrails", { key });

describe("creating and reading guardrails", () => {
  it("creates a guardrail with a pg- slug; action defaults to not denying", async () => {
    const guardrail = await createGuardrail();
    expect(guardrail).toMatchObject({
      object: "guardrail",
      name: "Short answers",
      checks: [SHORT],
      action: { deny: false },
      organisation_id: DEFAULT_ORGANISATION_ID,
      workspace_id: DEFAULT_WORKSPACE_ID,
      owner_id: OPERATOR_KEY_ID,
      updated_by: OPERATOR_KEY_ID,
    });
    expect(guardrail.id).toMatch(UUID);
    expect(guardrail.slug).toMatch(GUARDRAIL_SLUG);
    expect(guardrail.slug.startsWith("pg-short-answers-")).toBe(true);
    expect(guardrail.created_at).toMatch(TIMESTAMP);

    const read = await get(guardrail.slug);
    expect(read.status).toBe(200);
    expectContract("getGuardrail", read);
    expect(read.body).toEqual(guardrail);
  });

  it("keeps a denying action and several checks in order", async () => {
    const guardrail = await createGuardrail({ name: "strict", checks: [NO_SECRETS, SHORT], action: { deny: true } });
    expect(guardrail).toMatchObject({ action: { deny: true }, checks: [NO_SECRETS, SHORT] });
  });

  it("lists the workspace's guardrails newest first", async () => {
    const first = await createGuardrail({ name: "first", checks: [SHORT] });
    const second = await createGuardrail({ name: "second", checks: [SHORT] });
    const listed = await list();
    expect(listed.status).toBe(200);
    expectContract("listGuardrails", listed);
    expect(listed.body.total).toBe(listed.body.data.length);
    const slugs = listed.body.data.map((item: { slug: string }) => item.slug);
    expect(slugs.indexOf(second.slug)).toBeGreaterThanOrEqual(0);
    expect(slugs.indexOf(second.slug)).toBeLessThan(slugs.indexOf(first.slug));
  });

  it("an unknown slug is a 404", async () => {
    const missing = await get("pg-missing-00000000");
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: "not_found", param: "slug" });
  });
});

describe("updating and deleting guardrails", () => {
  it("PUT changes only the fields it sets", async () => {
    const guardrail = await createGuardrail();
    const denying = await put(guardrail.slug, { action: { deny: true } });
    expect(denying.status, JSON.stringify(denying.body)).toBe(200);
    expectContract("updateGuardrail", denying);
    expect(denying.body).toMatchObject({ slug: guardrail.slug, id: guardrail.id, name: "Short answers", checks: [SHORT], action: { deny: true } });
    expect(denying.body.updated_at >= guardrail.updated_at).toBe(true);

    const rechecked = await put(guardrail.slug, { name: "No secrets", checks: [NO_SECRETS] });
    expect(rechecked.body).toMatchObject({ slug: guardrail.slug, name: "No secrets", checks: [NO_SECRETS], action: { deny: true } });
    expect((await get(guardrail.slug)).body).toEqual(rechecked.body);

    const missing = await put("pg-missing-00000000", { name: "x" });
    expect(missing.status).toBe(404);
    expect(missing.body.error.param).toBe("slug");
  });

  it("DELETE removes it", async () => {
    const guardrail = await createGuardrail();
    const deleted = await remove(guardrail.slug);
    expect(deleted.status).toBe(200);
    expectContract("deleteGuardrail", deleted);
    expect(deleted.body).toEqual({ id: guardrail.slug, object: "guardrail", deleted: true });
    for (const response of [await get(guardrail.slug), await put(guardrail.slug, { name: "x" }), await remove(guardrail.slug)]) {
      expect(response.status).toBe(404);
    }
    expect((await list()).body.data.map((item: { slug: string }) => item.slug)).not.toContain(guardrail.slug);
  });

  it("a change applies to the next request that uses it (the cache is invalidated)", async () => {
    const guardrail = await createGuardrail({ name: "no hello", checks: [{ type: "contains", params: { words: ["hello"], operator: "none" } }], action: { deny: true } });
    const config = await call(gateway, "POST", "/v1/configs", {
      body: { name: "guarded", config: { provider: "openai", custom_host: `${upstream.url}/v1`, input_guardrails: [guardrail.slug] } },
    });
    expect(config.status, JSON.stringify(config.body)).toBe(201);
    const chat = () =>
      call(gateway, "POST", "/v1/chat/completions", {
        body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] },
        headers: { "x-gateway-config": config.body.slug, authorization: "Bearer sk-upstream-test" },
      });
    expect((await chat()).status).toBe(446);
    expect((await put(guardrail.slug, { action: { deny: false } })).status).toBe(200);
    const allowed = await chat();
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect(allowed.body.choices[0].message.content).toBe("Hello back");
  });
});

describe("what input guardrails judged is what goes upstream", () => {
  it("sends the body as the gateway read it, so a duplicate key cannot carry text past a check", async () => {
    const guardrail = await createGuardrail({ name: "no secrets", checks: [NO_SECRETS], action: { deny: true } });
    const config = await call(gateway, "POST", "/v1/configs", {
      body: { name: "judged", config: { provider: "openai", custom_host: `${upstream.url}/v1`, input_guardrails: [guardrail.slug] } },
    });
    expect(config.status, JSON.stringify(config.body)).toBe(201);
    // A parser keeping the first "messages" would see the password; the gateway's keeps the last.
    const raw = '{"messages":[{"role":"user","content":"my password is x"}],"messages":[{"role":"user","content":"hello"}],"model":"gpt-4o-mini"}';
    const response = await call(gateway, "POST", "/v1/chat/completions", {
      rawBody: raw,
      headers: { "x-gateway-config": config.body.slug, authorization: "Bearer sk-upstream-test" },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const last = upstream.getLastRequest();
    const seen = last?.body as Record<string, unknown>;
    expect(seen.messages).toEqual([{ role: "user", content: "hello" }]);
    // Re-serialised from the checked body: the raw text, with its first "messages", never left.
    expect(Number(last?.headers["content-length"])).toBe(Buffer.byteLength(JSON.stringify(JSON.parse(raw))));
    expect(Number(last?.headers["content-length"])).toBeLessThan(raw.length);
  });
});

describe("user patterns cannot stall the gateway", () => {
  // Each pattern backtracks exponentially in a backtracking engine on the attack text.
  const CATASTROPHIC = ["^(a+)+$", "^(a|a)+$", "^(a*)*$", "^(a|aa)+$", "^(a+)*$", "^(?:a+)+$", "^((a+)+)+$", "^(a?a)+$"];
  const ATTACK = `${"a".repeat(30)}!`;

  it("a chat request with catastrophic regex_match checks and a concurrent /health both answer fast", async () => {
    upstream.onMessage(ATTACK, { content: "Not a run of a" });
    const checks = CATASTROPHIC.map((pattern) => ({ type: "regex_match", params: { pattern, not: true } }));
    const guardrail = await createGuardrail({ name: "redos", checks, action: { deny: true } });
    const config = await call(gateway, "POST", "/v1/configs", {
      body: { name: "redos", config: { provider: "openai", custom_host: `${upstream.url}/v1`, input_guardrails: [guardrail.slug] } },
    });
    expect(config.status, JSON.stringify(config.body)).toBe(201);
    const chat = () =>
      call(gateway, "POST", "/v1/chat/completions", {
        body: { model: "gpt-4o-mini", messages: [{ role: "user", content: ATTACK }] },
        headers: { "x-gateway-config": config.body.slug, authorization: "Bearer sk-upstream-test" },
      });
    const timed = async <T>(work: () => Promise<T>) => {
      const started = performance.now();
      const value = await work();
      return { value, ms: performance.now() - started };
    };
    const warm = await chat();
    expect(warm.status, JSON.stringify(warm.body)).toBe(200);

    const [answered, health] = await Promise.all([timed(chat), timed(() => call(gateway, "GET", "/health", { key: null }))]);
    expect(answered.value.status, JSON.stringify(answered.value.body)).toBe(200);
    expect(answered.value.body.choices[0].message.content).toBe("Not a run of a");
    expect(health.value.status).toBe(200);
    // A backtracking engine takes minutes on 2^30 paths; a second leaves room for a loaded machine.
    expect(answered.ms).toBeLessThan(1000);
    expect(health.ms).toBeLessThan(1000);
  });

  it("a pattern the linear-time engine cannot run is refused at save, naming the check and the field", async () => {
    const backreference = await post({ name: "x", checks: [SHORT, { type: "regex_match", params: { pattern: "(a)\\1" } }] });
    expectBadRequest(backreference, "checks.1.params.pattern");
    expect(backreference.body.error.message).toMatch(/regex_match.*no backreferences or lookaround/);

    const lookahead = await post({ name: "x", checks: [{ type: "json_schema", params: { schema: { type: "string", pattern: "a(?=b)" } } }] });
    expectBadRequest(lookahead, "checks.0.params.schema");
    expect(lookahead.body.error.message).toContain("no backreferences or lookaround");

    const guardrail = await createGuardrail();
    expectBadRequest(await put(guardrail.slug, { checks: [{ type: "regex_match", params: { pattern: "(?<!a)b" } }] }), "checks.0.params.pattern");
    expect((await get(guardrail.slug)).body).toEqual(guardrail);
  });
});

describe("bad bodies name the field", () => {
  it("on create", async () => {
    expectBadRequest(await post({ checks: [SHORT] }), "name");
    expectBadRequest(await post({ name: "x", checks: [] }), "checks");
    expectBadRequest(await post({ name: "x", checks: [{ type: "no_such_check", params: {} }] }), "checks.0.type");
    expectBadRequest(await post({ name: "x", checks: [SHORT, { type: "no_such_check" }] }), "checks.1.type");
    expectBadRequest(await post({ name: "x", checks: [{ type: "word_count", params: { max: "many" } }] }), /^checks\.0\.params/);
    expectBadRequest(await post({ name: "x", checks: [{ type: "word_count", params: {} }] }), /^checks\.0\.params/);
    expectBadRequest(await post({ name: "x", checks: [{ type: "word_count" }] }), /^checks\.0\.params/);
    expectBadRequest(await post({ name: "x", checks: [SHORT], action: { deny: "yes" } }), "action.deny");
    expect((await post({ name: "x", checks: [SHORT], colour: "blue" })).status).toBe(400);
  });

  it("on update, without changing the guardrail", async () => {
    const guardrail = await createGuardrail();
    expectBadRequest(await put(guardrail.slug, {}), "body");
    expectBadRequest(await put(guardrail.slug, { checks: [{ type: "no_such_check", params: {} }] }), "checks.0.type");
    expectBadRequest(await put(guardrail.slug, { checks: [{ type: "word_count", params: { min: 5, max: 1 } }] }), /^checks\.0\.params/);
    expectBadRequest(await put(guardrail.slug, { name: "" }), "name");
    expect((await get(guardrail.slug)).body).toEqual(guardrail);
  });
});

describe("who may do what", () => {
  it("a service key gets 403 on every guardrail route", async () => {
    const guardrail = await createGuardrail();
    const service = await call(gateway, "POST", "/v1/api-keys", { body: { name: "guardrail reader", role: "service" } });
    const key: string = service.body.key;
    for (const [label, response] of [
      ["list", await list(key)],
      ["create", await post({ name: "x", checks: [SHORT] }, key)],
      ["get", await get(guardrail.slug, key)],
      ["update", await put(guardrail.slug, { name: "x" }, key)],
      ["delete", await remove(guardrail.slug, key)],
    ] as const) {
      expect(response.status, label).toBe(403);
      expect(response.body.error.code, label).toBe("insufficient_scope");
    }
    expect((await get(guardrail.slug)).body).toEqual(guardrail);
  });

  it("an admin key of another workspace can neither see nor touch this workspace's guardrails", async () => {
    const guardrail = await createGuardrail();
    const otherWorkspace = randomUUID();
    const foreign = await call(gateway, "POST", "/v1/api-keys", { body: { name: "other admin", role: "admin", workspace_id: otherWorkspace } });
    expect(foreign.status).toBe(201);
    const key: string = foreign.body.key;

    expect((await list(key)).body.data.map((item: { slug: string }) => item.slug)).not.toContain(guardrail.slug);
    for (const [label, response] of [
      ["get", await get(guardrail.slug, key)],
      ["update", await put(guardrail.slug, { action: { deny: true } }, key)],
      ["delete", await remove(guardrail.slug, key)],
    ] as const) {
      expect(response.status, label).toBe(404);
      expect(response.body.error.code, label).toBe("not_found");
    }
    expect((await get(guardrail.slug)).body).toEqual(guardrail);

    const theirs = await createGuardrail({ name: "theirs", checks: [SHORT] }, key);
    expect(theirs.workspace_id).toBe(otherWorkspace);
    expect((await get(theirs.slug)).status).toBe(404);
  });
});
