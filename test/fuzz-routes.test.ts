/**
 * Property-based fuzzing of every operation in the OpenAPI document, against one real gateway.
 *
 * For each operation fast-check builds requests from hostile parts: bodies (schema-shaped with
 * wrong values, arbitrary JSON, 200-level nesting, 1 MB strings, NUL and lone surrogates,
 * duplicate keys, out-of-range numbers, invalid UTF-8 bytes), path parameters (`..`, `%2F`, bad
 * percent escapes, 10k characters), query strings and gateway headers (garbage config and
 * metadata, odd `@` model forms). The property: no 5xx except 502/503/504 (upstream path), no
 * hang (10 s per request), every 4xx carries the error envelope. The upstream is a loopback
 * server that answers 200 `{}` to anything, so proxied requests never leave the machine.
 *
 * Reproduce a failure with the printed seed: `FUZZ_SEED=<seed> npx vitest run test/fuzz-routes.test.ts`.
 * Other knobs: `FUZZ_RUNS` (cases per operation, default 20), `FUZZ_VERBOSE=1` (status counts and
 * every 5xx), `FUZZ_NO_AGENT=1` (a new connection per request, to tell keep-alive faults apart).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, buildConnector, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from "undici";
import { openApiDocument } from "../src/generated/openapi-document.gen.ts";
import { startGateway, type RunningGateway } from "./support/harness.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 0x19f0220);
const NUM_RUNS = Number(process.env.FUZZ_RUNS ?? 20);
const REQUEST_TIMEOUT_MS = 10_000;
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

type Schema = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  operationId: string;
  pathParams: string[];
  queryParams: string[];
  jsonSchema?: Schema;
  multipart: boolean;
}

const document = openApiDocument as unknown as {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, Schema> };
};

const operations: Operation[] = Object.entries(document.paths).flatMap(([path, item]) =>
  METHODS.filter((method) => item[method]).map((method) => {
    const op = item[method];
    const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Schema) => resolve(p));
    const content = op.requestBody ? resolve(op.requestBody).content ?? {} : {};
    return {
      method: method.toUpperCase(),
      path,
      operationId: String(op.operationId),
      pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
      queryParams: parameters.filter((p) => p.in === "query").map((p) => String(p.name)),
      jsonSchema: content["application/json"]?.schema,
      multipart: Boolean(content["multipart/form-data"]),
    };
  }),
);

function resolve(schema: Schema): Schema {
  let current = schema;
  for (let hops = 0; current && typeof current.$ref === "string" && hops < 20; hops++) {
    const name = current.$ref.split("/").pop()!;
    current = document.components.schemas[name] ?? (document.components as any).parameters?.[name] ?? (document.components as any).requestBodies?.[name] ?? {};
  }
  return current ?? {};
}

// ---------- values ----------

const oddModel = fc.oneof(
  fc.constantFrom("@", "@/", "@x/", "@openai/", "@/gpt-4o", "@@", "@x/y/z", "gpt-4o", "", " ", "@openai/gpt-4o-mini", "\u0000", "\ud800"),
  fc.constant("m".repeat(10_000)),
  fc.constant(`@${"x".repeat(10_000)}/y`),
  fc.string({ maxLength: 40 }).map((s) => `@${s}`),
);

const weirdString = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.constantFrom("\u0000", "a\u0000b", "\ud800", "\udfff", "x\ud83d", "", "../../etc/passwd", "%00", "{{x}}", "{{#a}}{{/b}}"),
);

const weirdNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(-0, Number.MAX_SAFE_INTEGER + 2, -1, 0, 1e300, -1e300, 2 ** 63, 5e-324),
);

const wildJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: weirdString },
  { weight: 1, arbitrary: weirdNumber.map((n) => (Number.isFinite(n) ? n : 0)) },
);

/** A value shaped by the schema where the schema says something, wild otherwise; depth-bounded. */
function fromSchema(input: Schema | undefined, depth: number): fc.Arbitrary<unknown> {
  if (!input || depth > 5) return wildJson;
  const schema = resolve(input);
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    return fc.oneof(...alternatives.slice(0, 6).map((s: Schema) => fromSchema(s, depth + 1)));
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return fromSchema({ ...Object.assign({}, ...schema.allOf.map(resolve)), allOf: undefined }, depth + 1);
  if (Array.isArray(schema.enum)) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...schema.enum) }, { weight: 1, arbitrary: wildJson });
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const shaped = (() => {
    if (type === "object" || schema.properties) {
      const properties: Record<string, Schema> = schema.properties ?? {};
      const entries = Object.entries(properties).slice(0, 25);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, sub] of entries) record[key] = key === "model" ? fc.oneof(oddModel, fromSchema(sub, depth + 1)) : fromSchema(sub, depth + 1);
      const required = new Set<string>(schema.required ?? []);
      return fc.record(record, { requiredKeys: entries.map(([k]) => k).filter((k) => required.has(k)) });
    }
    if (type === "array") return fc.array(fromSchema(schema.items, depth + 1), { maxLength: 3 });
    if (type === "string") return weirdString;
    if (type === "integer" || type === "number") return weirdNumber.map((n) => (Number.isFinite(n) ? n : 1e308));
    if (type === "boolean") return fc.boolean();
    return wildJson;
  })();
  return fc.oneof({ weight: 5, arbitrary: shaped }, { weight: 1, arbitrary: wildJson });
}

// ---------- bodies (raw bytes) ----------

const deepNesting = fc.record({ depth: fc.integer({ min: 150, max: 260 }), kind: fc.constantFrom("array", "object", "messages") }).map(({ depth, kind }) => {
  if (kind === "array") return "[".repeat(depth) + "]".repeat(depth);
  if (kind === "object") return '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
  return `{"model":"gpt-4o","messages":[{"role":"user","content":${'{"x":['.repeat(depth)}1${"]}".repeat(depth)}}],"metadata":${'{"k":'.repeat(depth)}0${"}".repeat(depth)}}`;
});

const hugeString = fc.record({ model: fc.constantFrom("gpt-4o", "@openai/gpt-4o"), char: fc.constantFrom("x", "\\u0000", "é", "\\ud800") }).map(
  ({ model, char }) => `{"model":"${model}","input":"${char.repeat(Math.floor(1_000_000 / char.length))}","messages":[{"role":"user","content":"${"y".repeat(1_000_000)}"}],"prompt":"p"}`,
);

const rawTextOddities = fc.constantFrom(
  '{"model":"gpt-4o","model":"@x/","messages":[],"messages":{}}',
  '{"model":"a\\u0000b","messages":[{"role":"user","content":"\\ud800\\udc00\\udfff\\ud800"}]}',
  '{"model":"gpt-4o","max_tokens":1e309,"temperature":-0,"n":1e-400}',
  '{"model":"gpt-4o","max_tokens":NaN,"temperature":Infinity}',
  '{"model":"gpt-4o","n":-1e309,"top_p":123456789012345678901234567890}',
  '{"name":"x","name":"y","slug":"a","slug":"../b","config":{},"config":[]}',
  '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"model":"gpt-4o"}',
  "\u0000",
  "",
  "null",
  "[]",
  '"just a string"',
  "{",
  '{"a":1}garbage',
  "\ufeff{}",
  '{"model":"\u0000","messages":[{"role":"user","content":"nul\u0000raw"}]}',
);

const invalidUtf8 = fc.oneof(
  fc.constantFrom(
    Buffer.from([0xff, 0xfe, 0xfd]),
    Buffer.concat([Buffer.from('{"model":"'), Buffer.from([0xc3, 0x28]), Buffer.from('","messages":[{"role":"user","content":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}]}')]),
    Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]), Buffer.from('"}')]),
    Buffer.from([0x7b, 0x22, 0x80, 0x22, 0x3a, 0x31, 0x7d]),
  ),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
);

interface BodyCase {
  bytes?: Buffer;
  contentType?: string;
}

function bodyArbitrary(op: Operation): fc.Arbitrary<BodyCase> {
  const json = (text: fc.Arbitrary<string>) => text.map((t): BodyCase => ({ bytes: Buffer.from(t, "utf8"), contentType: "application/json" }));
  return fc.oneof(
    { weight: 5, arbitrary: json(fromSchema(op.jsonSchema, 0).map((v) => JSON.stringify(v) ?? "null")) },
    { weight: 2, arbitrary: json(fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v))) },
    { weight: 1, arbitrary: json(deepNesting) },
    { weight: 1, arbitrary: json(hugeString) },
    { weight: 2, arbitrary: json(rawTextOddities) },
    { weight: 2, arbitrary: invalidUtf8.map((bytes): BodyCase => ({ bytes, contentType: "application/json" })) },
    {
      weight: 1,
      arbitrary: fc
        .record({
          contentType: fc.constantFrom("multipart/form-data", "multipart/form-data; boundary=xyz", "multipart/form-data; boundary=", "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1", "application/octet-stream", "garbage/;;;"),
          text: fc.constantFrom("--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nhello\r\n--xyz--\r\n", "--xyz\r\n\r\n", "a=1&b=%zz", "", '{"model":"gpt-4o"}', "--xyz\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\n@x/\r\n--xyz"),
        })
        .map(({ contentType, text }): BodyCase => ({ bytes: Buffer.from(text), contentType })),
    },
    { weight: 1, arbitrary: fc.constant<BodyCase>({}) },
  );
}

// ---------- path, query, headers ----------

const pathSegment = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((s) => encodeURIComponent(s) || "x") },
  {
    weight: 3,
    arbitrary: fc.constantFrom("..", ".", "%2E%2E", "%2F", "..%2F..%2Fhealth", "a%2Fb", "%00", "%zz", "%", "%E0%A4%A", "%ED%A0%80", "%C0%AF", "@", "%40x%2F", "~", "'", ";", "*"),
  },
  { weight: 1, arbitrary: fc.constant("p".repeat(10_000)) },
);

const queryString = (op: Operation) => {
  const names = op.queryParams.length > 0 ? fc.constantFrom(...op.queryParams, "limit", "after") : fc.constantFrom("limit", "after", "x");
  const value = fc.oneof(
    fc.stringMatching(/^[A-Za-z0-9_.-]{0,12}$/),
    fc.constantFrom("-1", "0", "1e309", "NaN", "99999999999999999999", "%zz", "%00", "true", "[]", "%7B%7D", "2024-13-45", "-0", "q".repeat(5000)),
    fc.integer().map(String),
  );
  return fc.oneof(
    fc.constant(""),
    fc.array(fc.tuple(fc.oneof(names, fc.constantFrom("%zz", "a[b]", "")), value), { maxLength: 5 }).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join("&")),
    fc.constantFrom("&&&", "=", "a", "%", "limit&limit=1&limit=2"),
  );
};

/** Header values node's HTTP client accepts: printable latin-1 and tab. */
const headerText = (max: number) =>
  fc.string({ unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff })).map((c) => String.fromCharCode(c)), maxLength: max });

const gatewayConfigHeader = fc.oneof(
  headerText(60),
  fc.constantFrom("{", "[]", "null", "1e309", '{"targets":[]}', '{"strategy":{"mode":"fallback"},"targets":"x"}', '{"retry":{"attempts":1e309}}', '{"cache":{"mode":"semantic","max_age":-1}}', '{"targets":[{"provider":"@x/"}]}', '{"strategy":{"mode":"conditional","conditions":[{"query":{"$bad":1}}]}}'),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
);

const metadataHeader = fc.oneof(
  headerText(60),
  fc.constantFrom("{", "[]", "null", '{"a":{"b":{"c":1}}}', `{"k":"${"v".repeat(9000)}"}`, '{"__proto__":{"x":1}}', '"str"'),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 })).map((v) => JSON.stringify(v)),
);

interface HeaderCase {
  key: "admin" | "none" | "garbage";
  provider: "openai" | "none" | "garbage";
  config?: string;
  metadata?: string;
  virtualKey?: string;
  timeout?: string;
  extra?: [string, string];
}

/** Present about one time in five, so most cases get past the headers and reach the body's validation. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });

const headerCase: fc.Arbitrary<HeaderCase> = fc.record({
  key: fc.constantFrom("admin", "admin", "admin", "admin", "admin", "admin", "none", "garbage"),
  provider: fc.constantFrom("openai", "openai", "openai", "openai", "none", "garbage"),
  config: sometimes(gatewayConfigHeader),
  metadata: sometimes(metadataHeader),
  virtualKey: sometimes(fc.oneof(fc.constantFrom("@", "@/", "@x/", ""), headerText(20), fc.constant("v".repeat(10_000)))),
  timeout: sometimes(fc.constantFrom("-1", "0", "abc", "1e309", "99999999999", "1")),
  extra: sometimes(
    fc.tuple(fc.constantFrom("x-gateway-trace-id", "x-gateway-span-id", "x-gateway-cache-force-refresh", "x-gateway-upstream-organization", "authorization", "x-gateway-span-name"), headerText(40)),
  ),
});

// ---------- the loopback upstream and the request ----------

interface Answer {
  status: number;
  text: string;
  contentType: string;
}

let gateway: RunningGateway;
let upstream: Server;
let upstreamUrl: string;
let previous = "none";
let originalDispatcher: Dispatcher;
/** Hosts off loopback the gateway tried to reach (a model `@openai/…` without a custom host): refused. */
const refusedHosts = new Set<string>();

/**
 * The gateway's upstream fetch may only connect to loopback: a fuzz case may name a real provider
 * without a custom host (`"model": "@openai/gpt-4o"`), and that request must not leave the machine.
 * It is refused at connect time and the gateway answers 502 (allowed: the upstream path).
 */
function loopbackOnlyDispatcher(): Agent {
  const connect = buildConnector({});
  return new Agent({
    connect: (options, callback) => {
      if (["127.0.0.1", "localhost", "[::1]", "::1"].includes(options.hostname)) return connect(options, callback);
      refusedHosts.add(options.hostname);
      callback(new Error(`fuzz: refused a connection off loopback (${options.hostname})`), null);
    },
  });
}

/** Sends one request; a body goes with its `content-length`, or chunked (no length) when `chunked`. */
function send(method: string, path: string, headers: Record<string, string>, body?: Buffer, chunked = false): Promise<Answer> {
  const { hostname, port } = new URL(gateway.url);
  return new Promise((resolvePromise, reject) => {
    const req = request({ hostname, port, method, path, agent: process.env.FUZZ_NO_AGENT ? false : undefined, headers: body && !chunked ? { ...headers, "content-length": String(body.length) } : headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolvePromise({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8"), contentType: String(res.headers["content-type"] ?? "") }));
      res.on("error", reject);
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`no complete answer within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on("error", reject);
    if (body && chunked) {
      // Two writes, so the body really goes as more than one chunk.
      req.write(body.subarray(0, body.length >> 1));
      req.end(body.subarray(body.length >> 1));
    } else req.end(body);
  });
}

function buildHeaders(h: HeaderCase, body: BodyCase): Record<string, string> {
  const headers: Record<string, string> = {};
  if (h.key === "admin") headers["x-gateway-api-key"] = gateway.adminKey;
  if (h.key === "garbage") headers["x-gateway-api-key"] = "not-a-key-\u00ff";
  if (h.provider === "openai") {
    headers["x-gateway-provider"] = "openai";
    headers["x-gateway-custom-host"] = `${upstreamUrl}/v1`;
  }
  if (h.provider === "garbage") {
    headers["x-gateway-provider"] = "@x/";
    headers["x-gateway-custom-host"] = "not a url";
  }
  if (h.config !== undefined) headers["x-gateway-config"] = h.config;
  if (h.metadata !== undefined) headers["x-gateway-metadata"] = h.metadata;
  if (h.virtualKey !== undefined) headers["x-gateway-virtual-key"] = h.virtualKey;
  if (h.timeout !== undefined) headers["x-gateway-request-timeout"] = h.timeout;
  if (h.extra) headers[h.extra[0]] = h.extra[1];
  if (body.contentType) headers["content-type"] = body.contentType;
  return headers;
}

/** What a failing case looks like, short enough to print: long parts are elided with their length. */
function describeCase(value: unknown): string {
  return JSON.stringify(value, (_key, v) => {
    if (typeof v === "string" && v.length > 200) return `${v.slice(0, 80)}…(${v.length} chars)`;
    if (v && typeof v === "object" && v.type === "Buffer" && Array.isArray(v.data)) {
      const text = Buffer.from(v.data).toString("latin1");
      return text.length > 200 ? `<bytes ${text.length}: ${JSON.stringify(text.slice(0, 80))}…>` : `<bytes ${JSON.stringify(text)}>`;
    }
    return v;
  });
}

/** Status counts over the whole run: the fuzz must reach both the upstream (2xx) and validation (4xx). */
const statusCounts = new Map<number, number>();

function checkAnswer(answer: Answer): void {
  statusCounts.set(answer.status, (statusCounts.get(answer.status) ?? 0) + 1);
  if (process.env.FUZZ_VERBOSE && answer.status >= 500) console.log(answer.status, answer.text.slice(0, 300), previous);
  const upstreamPath = answer.status === 502 || answer.status === 503 || answer.status === 504;
  if (answer.status >= 500 && !upstreamPath) throw new Error(`gateway answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  if (answer.status >= 400) {
    let body: any;
    try {
      body = JSON.parse(answer.text);
    } catch {
      throw new Error(`${answer.status} answer is not JSON (${answer.contentType}): ${answer.text.slice(0, 300)}`);
    }
    // The gateway's envelope (and Anthropic's shape, on its routes) names a `type`; Google's shape,
    // on Google's routes, the status as `code` and its name as `status`.
    const typed = typeof body?.error?.type === "string";
    const google = body?.error?.code === answer.status && typeof body?.error?.status === "string";
    if (!(typed || google) || typeof body?.error?.message !== "string" || body.error.message.length === 0) {
      throw new Error(`${answer.status} answer lacks the error envelope: ${answer.text.slice(0, 300)}`);
    }
  }
}

beforeAll(async () => {
  originalDispatcher = getGlobalDispatcher();
  setGlobalDispatcher(loopbackOnlyDispatcher());
  upstream = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((done) => upstream.listen(0, "127.0.0.1", done));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  if (originalDispatcher) setGlobalDispatcher(originalDispatcher);
  await new Promise<void>((done) => {
    upstream?.closeAllConnections();
    upstream?.close(() => done());
  });
});

describe(`fuzzing every operation (seed ${SEED}, ${NUM_RUNS} runs each)`, () => {
  it("covers every operation of the document", () => {
    expect(operations.length).toBeGreaterThan(100);
    expect(new Set(operations.map((o) => o.operationId)).size).toBe(operations.length);
  });

  it.each(operations.map((op) => [`${op.method} ${op.path}`, op] as const))("%s: no 5xx, no hang, 4xx in the envelope", async (_name, op) => {
    const segments = fc.tuple(...op.pathParams.map(() => pathSegment));
    const property = fc.asyncProperty(
      op.pathParams.length > 0 ? segments : fc.constant([] as string[]),
      queryString(op),
      headerCase,
      op.method === "GET" || op.method === "DELETE" ? fc.oneof({ weight: 4, arbitrary: fc.constant<BodyCase>({}) }, { weight: 1, arbitrary: bodyArbitrary(op) }) : bodyArbitrary(op),
      fc.boolean(),
      async (params, query, headers, body, chunked) => {
        let index = 0;
        const path = op.path.replace(/\{[^}]+\}/g, () => params[index++]!) + (query ? `?${query}` : "");
        const sent = buildHeaders(headers, body);
        let answer: Answer;
        try {
          answer = await send(op.method, path, sent, body.bytes, chunked);
        } catch (error) {
          throw new Error(`${(error as Error).message}; previous request: ${previous}`);
        }
        previous = describeCase({ method: op.method, path, headers: sent, body: body.bytes, chunked, status: answer.status });
        checkAnswer(answer);
      },
    );
    await fc.assert(property, {
      seed: SEED,
      numRuns: NUM_RUNS,
      reporter: (details) => {
        if (!details.failed) return;
        throw new Error(
          `${op.operationId} failed (seed ${details.seed}, path ${details.counterexamplePath}; rerun with FUZZ_SEED=${details.seed}):\n` +
            `${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}\n` +
            `case: ${describeCase(details.counterexample)}`,
        );
      },
    });
  }, 120_000);

  it("the gateway still answers /health after the whole run", async () => {
    const answer = await send("GET", "/health", {});
    expect(answer.status).toBe(200);
    if (process.env.FUZZ_VERBOSE) console.log(Object.fromEntries([...statusCounts].sort(([a], [b]) => a - b)), "refused hosts:", [...refusedHosts]);
    const count = (low: number, high: number) => [...statusCounts].filter(([s]) => s >= low && s < high).reduce((sum, [, n]) => sum + n, 0);
    expect(count(200, 300)).toBeGreaterThan(NUM_RUNS);
    expect(count(400, 500)).toBeGreaterThan(NUM_RUNS * 10);
  });
});
