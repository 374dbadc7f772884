/**
 * Property test of the save-time limits: random and hostile templates, patterns, JSON Schemas,
 * routing conditions, webhook URLs and upstream header values are saved through the API, and every one that is saved is
 * then used by a request (the prompt rendered and run, the guardrail run on input and output,
 * the config routed) against an aimock upstream. The property: a save answers 2xx or a 4xx
 * with the error envelope; a use never answers a 5xx and never takes longer than its bound.
 *
 * Reproduce a failure with the printed seed: `FUZZ_SEED=<seed> npx vitest run test/stored-values-fuzz.test.ts`.
 * `FUZZ_RUNS` sets the cases per kind (default 60); `FUZZ_VERBOSE=1` prints the statuses seen, `FUZZ_DEBUG=1` every refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import type { LLMock } from "@copilotkit/aimock";
import { startGateway, startUpstream, type RunningGateway } from "./support/harness.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 0x11f17);
const NUM_RUNS = Number(process.env.FUZZ_RUNS ?? 60);
/** No single save or use may take longer than this. */
const REQUEST_BOUND_MS = 10_000;
const CLIENT_KEY = "sk-fuzz-client-key-0001";

let gateway: RunningGateway;
let upstream: LLMock;
let host: string;
let virtualKey: string;

interface Answer {
  status: number;
  body: any;
  ms: number;
}

async function send(method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { "x-gateway-api-key": gateway.adminKey, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_BOUND_MS),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // An event stream or plain text: kept as text.
  }
  return { status: response.status, body: parsed, ms: performance.now() - started };
}

/** Answers seen, by what and status: the test also checks that saves were not all refused. */
const seen = new Map<string, number>();
function count(what: string, status: number): void {
  const key = `${what} ${status}`;
  seen.set(key, (seen.get(key) ?? 0) + 1);
}
const uses = (what: string) => [...seen].filter(([key]) => key.startsWith(what)).reduce((sum, [, n]) => sum + n, 0);

/** A save: 2xx, or a 4xx in the error envelope. */
function expectSaveAnswer(answer: Answer, what: string): boolean {
  count(what, answer.status);
  if (process.env.FUZZ_DEBUG && answer.status >= 400) console.log(what, answer.body?.error?.message?.slice(0, 150));
  const shown = `${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`;
  expect(answer.status < 500, shown).toBe(true);
  if (answer.status >= 400) {
    expect(typeof answer.body?.error?.message, shown).toBe("string");
    expect(typeof answer.body?.error?.type, shown).toBe("string");
    return false;
  }
  return true;
}

/** A use: no 5xx, and an error in the envelope. */
function expectUseAnswer(answer: Answer, what: string): void {
  count(what, answer.status);
  const shown = `${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`;
  expect(answer.status < 500, shown).toBe(true);
  if (answer.status >= 400) expect(typeof answer.body?.error?.message, shown).toBe("string");
  expect(answer.ms, shown).toBeLessThan(REQUEST_BOUND_MS);
}

// ---------- hostile parts ----------

const tag = fc.constantFrom("{{", "}}", "{{#a}}", "{{/a}}", "{{^b}}", "{{/b}}", "{{#items}}", "{{/items}}", "{{.}}", "{{>partial}}", "{{=<% %>=}}", "<%x%>", "{{{raw}}}", "{{&amp}}", "{{!note}}", "{{a.b.c}}", "{{", "{{#", "}}}", "\u0000", "\ud800", "x");
const template = fc.oneof(
  fc.array(tag, { maxLength: 60 }).map((parts) => parts.join("")),
  fc.integer({ min: 1, max: 400 }).map((depth) => `${"{{#items}}".repeat(depth)}{{.}}${"{{/items}}".repeat(depth)}`),
  fc.integer({ min: 1, max: 3000 }).map((count) => Array.from({ length: count }, (_, i) => `{{v${i}}}`).join("")),
  fc.constant("{{#items}}".repeat(6) + "{{items}}" + "{{/items}}".repeat(6)),
  fc.constant("x".repeat(300_000)),
  fc.string({ maxLength: 200 }),
);
const variables = fc.oneof(
  fc.constant({}),
  fc.constant({ items: Array.from({ length: 200 }, (_, i) => i), a: true, b: false, raw: "<b>", v0: "z" }),
  fc.constant({ items: Array.from({ length: 50 }, () => ({ items: Array.from({ length: 50 }, () => "x".repeat(100)) })) }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 8 }),
);

const regexPattern = fc.oneof(
  { arbitrary: fc.constantFrom("^a+$", "hello", "[0-9]{3}-[0-9]{4}", "(?i)secret", "\\bword\\b", "a.*b", "(a|b|c)+", "^\\{"), weight: 4 },
  fc.constantFrom("(a+)+$", "(a|a)*b", "(.*a){20}", "(a)\\1", "(?=a)b", "(?<!x)y", "a{1000}{1000}", "(?:[a-z]{0,9}){100}", "[", "(", "\\", "", "^$", "\\p{L}+", "(?i)abc", "[^\\x00-\\x{10FFFF}]"),
  fc.stringMatching(/^[a-z()|*+?{}[\]\\.^$0-9,]{1,40}$/),
  fc.integer({ min: 900, max: 5000 }).map((length) => "a".repeat(length)),
  fc.integer({ min: 1, max: 3000 }).map((length) => `[${"a-z".repeat(length)}]`),
);

const leafSchema: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ type: fc.constantFrom("string", "number", "object", "array", "bogus") }),
  regexPattern.map((pattern) => ({ type: "string", pattern })),
  fc.constantFrom({ $ref: "#" }, { $ref: "#/definitions/a" }, { $ref: "http://example.com/x" }, { format: "email" }, { maxItems: 1e12 }, { uniqueItems: true }, { $async: true }, { not: { $ref: "#" } }),
);
const schema: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.record({ type: fc.constant("object"), properties: fc.dictionary(fc.constantFrom("a", "b", "c"), fc.record({ type: fc.constantFrom("string", "number", "array", "object") })), required: fc.constant(["a"]) }), weight: 3 },
  fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leafSchema,
      fc.record({ type: fc.constant("object"), properties: fc.dictionary(fc.string({ maxLength: 5 }), tie("node"), { maxKeys: 4 }) }),
      fc.record({ anyOf: fc.array(tie("node"), { minLength: 1, maxLength: 4 }) }),
      fc.record({ type: fc.constant("array"), items: tie("node"), uniqueItems: fc.boolean() }),
      fc.record({ definitions: fc.record({ a: tie("node") }), $ref: fc.constant("#/definitions/a") }),
    ),
  })).node,
  fc.integer({ min: 30, max: 60 }).map((depth) => {
    let node: unknown = { type: "string" };
    for (let i = 0; i < depth; i++) node = { type: "object", properties: { a: node } };
    return node;
  }),
  fc.integer({ min: 50, max: 800 }).map((count) => ({ anyOf: Array.from({ length: count }, (_, i) => ({ const: i })) })),
  fc.jsonValue({ maxDepth: 4 }),
);

const webhookUrl = fc.oneof(
  fc.constantFrom("http://[::1]:1/", "http://localhost:1/x", "http://10.0.0.1/", "http://169.254.169.254/latest", "file:///etc/passwd", "http://u:p@127.0.0.1:1/", "ftp://127.0.0.1/", "not a url", "http://0x7f.1:1/"),
  fc.integer({ min: 2000, max: 3000 }).map((length) => `http://127.0.0.1:1/${"a".repeat(length)}`),
);

const check = fc.oneof(
  fc.record({ type: fc.constant("regex_match"), params: fc.record({ pattern: regexPattern, flags: fc.constantFrom("", "i", "ms", "is", "x") }) }),
  fc.record({ type: fc.constant("json_schema"), params: fc.record({ schema }) }),
  fc.record({ type: fc.constant("contains"), params: fc.record({ words: fc.array(fc.string({ maxLength: 600 }), { maxLength: 120 }), operator: fc.constantFrom("any", "all", "none", "some") }) }),
  fc.record({ type: fc.constant("webhook"), params: fc.record({ url: webhookUrl, timeout_ms: fc.constant(500) }) }),
  fc.constant({ type: "webhook", params: { url: "http://127.0.0.1:1/hook", timeout_ms: 500 } }),
);

const field = fc.oneof(
  { arbitrary: fc.constantFrom("metadata.plan", "params.model", "params.messages.0.content", "params.messages.999999.role", "route"), weight: 6 },
  fc.constantFrom("params", "metadata.", "bogus.x", "$where"),
);
const operand = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 3 },
  { arbitrary: fc.record({ $regex: regexPattern }), weight: 3 },
  fc.record({ $in: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 120 }) }),
  fc.record({ $gt: fc.oneof(fc.integer(), fc.string()), $lte: fc.oneof({ arbitrary: fc.integer(), weight: 4 }, fc.jsonValue({ maxDepth: 1 })) }),
  fc.record({ $unknown: fc.constant(1) }),
);
const query: fc.Arbitrary<unknown> = fc.letrec<{ q: unknown }>((tie) => ({
  q: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.dictionary(field, operand, { minKeys: 1, maxKeys: 3 }),
    fc.record({ $or: fc.array(tie("q"), { minLength: 1, maxLength: 4 }) }),
    fc.record({ $and: fc.array(tie("q"), { minLength: 1, maxLength: 4 }) }),
  ),
})).q;
const simpleQuery = fc.dictionary(
  fc.constantFrom("metadata.plan", "params.model", "params.messages.0.content", "route"),
  fc.oneof(fc.string({ maxLength: 20 }), fc.record({ $regex: fc.constantFrom("^a", "gpt", "(?i)hello", "x|y|z") }), fc.record({ $in: fc.array(fc.string({ maxLength: 5 }), { maxLength: 5 }) })),
  { minKeys: 1, maxKeys: 2 },
);
const wideQuery = fc.integer({ min: 20, max: 130 }).map((count) => ({ $or: Array.from({ length: count }, (_, i) => ({ [`metadata.k${i}`]: { $regex: `^${i}` } })) }));

/** Values sent upstream as header values: fine ones, and ones `fetch` cannot send. */
const headerValue = fc.oneof(
  { arbitrary: fc.constant(CLIENT_KEY), weight: 4 },
  fc.constantFrom("sk-a\r\nX-Injected: 1", "sk-\u0000", "sk-ключ", "sk-\u2028", " spaced key ", "k".repeat(9000)),
  fc.string({ maxLength: 30 }),
);

const hostileText = fc.oneof(
  fc.constant(`${"a".repeat(30_000)}!`),
  fc.constant('{"a": [1, 1, 1], "b": "x"} and ```json\n{"c": {"a": {"a": "y"}}}\n```'),
  fc.string({ maxLength: 300 }),
);

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage(/[\s\S]*/, { content: `${"a".repeat(5_000)} {"a": {"a": "b"}} https://example.com` });
  gateway = await startGateway();
  host = `${upstream.url}/v1`;
  const vk = await send("POST", "/v1/virtual-keys", { name: "fuzz", provider: "openai", key: CLIENT_KEY, custom_host: host });
  expect(vk.status).toBe(201);
  virtualKey = vk.body.slug;
});

afterAll(async () => {
  if (process.env.FUZZ_VERBOSE) console.log([...seen].sort().map(([key, n]) => `${key}: ${n}`).join("\n"));
  await gateway?.close();
  await upstream?.stop();
});

const chat = (content: string) => ({ model: "gpt-4o-mini", messages: [{ role: "user", content }] });
const settings = { seed: SEED, numRuns: NUM_RUNS, endOnFailure: true };

describe("stored values are refused at save or never break a request", () => {
  it("prompt templates", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(template, { minLength: 1, maxLength: 3 }), variables, async (contents, values) => {
        const messages = contents.map((content) => ({ role: "user", content }));
        const saved = await send("POST", "/v1/prompts", { name: "fuzz", model: "gpt-4o-mini", virtual_key: virtualKey, messages });
        if (!expectSaveAnswer(saved, "save prompt")) return;
        expectUseAnswer(await send("POST", `/v1/prompts/${saved.body.id}/render`, { variables: values }), "render");
        expectUseAnswer(await send("POST", `/v1/prompts/${saved.body.id}/completions`, { variables: values }), "run");
        expectUseAnswer(await send("POST", `/v1/prompts/${saved.body.id}/completions`, { variables: values, stream: true }), "run streamed");
      }),
      settings,
    );
    expect(uses("render")).toBeGreaterThan(NUM_RUNS / 5);
  }, 120_000);

  it("guardrail checks: patterns, JSON Schemas, word lists, webhook URLs", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(check, { minLength: 1, maxLength: 2 }), fc.boolean(), hostileText, async (checks, deny, text) => {
        const saved = await send("POST", "/v1/guardrails", { name: "fuzz", checks, action: { deny } });
        if (!expectSaveAnswer(saved, "save guardrail")) return;
        const config = { provider: "openai", custom_host: host, input_guardrails: [saved.body.slug], output_guardrails: [saved.body.slug] };
        const headers = { "x-gateway-config": JSON.stringify(config), authorization: `Bearer ${CLIENT_KEY}` };
        expectUseAnswer(await send("POST", "/v1/chat/completions", chat(text), headers), "guarded chat");
        expectUseAnswer(await send("POST", "/v1/chat/completions", { ...chat(text), stream: true }, headers), "guarded stream");
      }),
      settings,
    );
    expect(uses("guarded chat")).toBeGreaterThan(NUM_RUNS / 5);
  }, 120_000);

  it("routing conditions", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof({ arbitrary: simpleQuery, weight: 4 }, { arbitrary: query, weight: 2 }, wideQuery), { minLength: 1, maxLength: 2 }), fc.boolean(), fc.string({ maxLength: 50 }), headerValue, headerValue, async (queries, withDefault, plan, key, organization) => {
        const target = (name: string) => ({ name, provider: "openai", custom_host: host, api_key: key, upstream_organization: organization });
        const config = {
          strategy: { mode: "conditional", conditions: queries.map((q, index) => ({ query: q, then: index % 2 === 0 ? "a" : "b" })), ...(withDefault ? { default: "b" } : {}) },
          targets: [target("a"), target("b")],
        };
        const saved = await send("POST", "/v1/configs", { name: "fuzz", config });
        if (!expectSaveAnswer(saved, "save config")) return;
        const headers = { "x-gateway-config": saved.body.slug, "x-gateway-metadata": JSON.stringify({ plan }) };
        expectUseAnswer(await send("POST", "/v1/chat/completions", chat(plan), headers), "routed chat");
      }),
      settings,
    );
    expect(uses("routed chat")).toBeGreaterThan(NUM_RUNS / 5);
  }, 120_000);
});
