import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { call, freePort, startGateway, startUpstream, storedLog, upstreamHeaders, type RunningGateway } from "./support/harness.ts";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "./support/otlp-receiver.ts";
import type { LogEntry } from "../src/logging/log-entry.ts";
import { OtlpRequestTracing } from "../src/telemetry/otlp-tracing.ts";

const SERVER = 2;
const CLIENT = 3;
const INTERNAL = 1;
const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";

let receiver: OtlpReceiver;
let upstream: LLMock;
let gateway: RunningGateway;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  upstream = await startUpstream();
  upstream.onMessage("traced hello", { content: "Hi there!", usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 } });
  gateway = await startGateway({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_HEADERS: { "x-collector-key": "collector-secret" },
    OTEL_SERVICE_NAME: "gateway-under-test",
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await receiver?.close();
});

/** Sends a chat request through the gateway; resolves with the answer's status and log id. */
async function chat(headers: Record<string, string> = {}, body: Record<string, unknown> = {}) {
  const response = await call(gateway, "POST", "/v1/chat/completions", {
    body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "traced hello" }], ...body },
    headers: { ...upstreamHeaders(gateway, upstream), ...headers },
  });
  return { status: response.status, logId: response.headers.get("x-gateway-log-id")!, traceHeader: response.headers.get("x-gateway-trace-id") };
}

/** The spans of one request (found by its log id on the SERVER span), once exported. */
async function spansOf(logId: string): Promise<{ server: ReceivedSpan; children: ReceivedSpan[] }> {
  await gateway.flushLogs();
  await gateway.gateway.telemetry.tracing!.flush();
  const spans = await receiver.waitFor((all) => all.some((span) => span.attributes["gateway.log_id"] === logId));
  const server = spans.find((span) => span.attributes["gateway.log_id"] === logId)!;
  return { server, children: spans.filter((span) => span.parentSpanId === server.spanId) };
}

describe("OpenTelemetry spans over OTLP/HTTP", () => {
  it("exports a SERVER span and one CLIENT span per upstream try, with GenAI attributes and the real token counts", async () => {
    const { status, logId } = await chat({}, { max_tokens: 64, temperature: 0.2 });
    expect(status).toBe(200);
    const record = await storedLog(gateway, logId);
    const { server, children } = await spansOf(logId);

    // A request that starts its own trace is traced under its log id.
    expect(server.traceId).toBe(logId.replaceAll("-", ""));
    expect(server.parentSpanId).toBeNull();
    expect(server).toMatchObject({ name: "POST createChatCompletion", kind: SERVER });
    expect(server.resource["service.name"]).toBe("gateway-under-test");
    expect(server.attributes).toMatchObject({
      "http.request.method": "POST",
      "url.path": "/v1/chat/completions",
      "http.response.status_code": 200,
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.system": "openai",
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.request.max_tokens": 64,
      "gen_ai.request.temperature": 0.2,
      "gen_ai.usage.input_tokens": 12,
      "gen_ai.usage.output_tokens": 4,
      "gateway.log_id": logId,
    });
    expect(server.attributes["gateway.cost_usd"]).toBe(record.costUsd);
    expect(server.attributes["error.type"]).toBeUndefined();
    // The span covers the request as the log timed it.
    expect(server.startMs).toBe(Date.parse(record.createdAt));
    expect(server.endMs - server.startMs).toBeCloseTo(record.latencyMs, 0);

    expect(children).toHaveLength(1);
    const [attempt] = children;
    expect(attempt).toMatchObject({ name: "chat gpt-4o-mini", kind: CLIENT, traceId: server.traceId });
    expect(attempt!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.usage.input_tokens": 12,
      "gen_ai.usage.output_tokens": 4,
      "http.response.status_code": 200,
      "gateway.attempt": 0,
    });
    expect(attempt!.startMs).toBeGreaterThanOrEqual(server.startMs);
    expect(attempt!.endMs).toBeLessThanOrEqual(server.endMs + 1);
    // The collector's headers from OTEL_EXPORTER_OTLP_HEADERS went with the export.
    expect(receiver.requests.some((request) => request.headers["x-collector-key"] === "collector-secret")).toBe(true);
  });

  it("names the GenAI operation its descriptor gives, also for a request refused before the upstream, and no other", async () => {
    const refused = await call(gateway, "POST", "/v1/embeddings", { body: { model: "text-embedding-3-small" }, headers: upstreamHeaders(gateway, upstream) });
    expect(refused.status).toBe(400);
    const { server: embeddings } = await spansOf(refused.headers.get("x-gateway-log-id")!);
    expect(embeddings.attributes).toMatchObject({ "gateway.route": "createEmbedding", "gen_ai.operation.name": "embeddings", "http.response.status_code": 400 });

    const files = await call(gateway, "GET", "/v1/files?limit=1", { headers: upstreamHeaders(gateway, upstream) });
    const { server: listed } = await spansOf(files.headers.get("x-gateway-log-id")!);
    expect(listed.attributes["gateway.route"]).toBe("listFiles");
    expect(Object.keys(listed.attributes).filter((name) => name.startsWith("gen_ai."))).toEqual([]);
  });

  it("joins the caller's trace from a W3C traceparent, in the log and in the spans", async () => {
    const { status, logId, traceHeader } = await chat({ traceparent: `00-${TRACE}-${PARENT}-01` });
    expect(status).toBe(200);
    expect(traceHeader).toBe(TRACE);
    const record = await storedLog(gateway, logId);
    expect(record).toMatchObject({ traceId: TRACE, parentSpanId: PARENT });
    const { server, children } = await spansOf(logId);
    expect(server).toMatchObject({ traceId: TRACE, parentSpanId: PARENT });
    expect(children.map((span) => span.traceId)).toEqual([TRACE]);
  });

  it("lets x-gateway-trace-id win over traceparent, and ignores an invalid traceparent", async () => {
    const named = await chat({ traceparent: `00-${TRACE}-${PARENT}-01`, "x-gateway-trace-id": "caller-trace-7" });
    expect(named.traceHeader).toBe("caller-trace-7");
    expect(await storedLog(gateway, named.logId)).toMatchObject({ traceId: "caller-trace-7", parentSpanId: null });
    const { server } = await spansOf(named.logId);
    expect(server.parentSpanId).toBeNull();
    expect(server.attributes["gateway.trace_id"]).toBe("caller-trace-7");
    expect(server.traceId).toMatch(/^[0-9a-f]{32}$/);

    const invalid = await chat({ traceparent: `00-${"0".repeat(32)}-${PARENT}-01` });
    expect(invalid.status).toBe(200);
    expect(invalid.traceHeader).toBe(invalid.logId);
    expect(await storedLog(gateway, invalid.logId)).toMatchObject({ traceId: invalid.logId, parentSpanId: null });
  });

  it("puts each guardrail that ran under the request as an INTERNAL span", async () => {
    const created = await call(gateway, "POST", "/v1/guardrails", { body: { name: "short", checks: [{ type: "word_count", params: { max: 50 } }] } });
    expect(created.status).toBe(201);
    const slug: string = created.body.slug;
    const { status, logId } = await chat({ "x-gateway-config": JSON.stringify({ input_guardrails: [slug] }) });
    expect(status).toBe(200);
    const { server, children } = await spansOf(logId);
    const guardrail = children.find((span) => span.kind === INTERNAL);
    expect(guardrail).toMatchObject({ name: `guardrail ${slug}` });
    expect(guardrail!.attributes).toMatchObject({ "gateway.guardrail.stage": "input", "gateway.guardrail.verdict": true, "gateway.guardrail.checks": ["word_count"] });
    expect(guardrail!.startMs).toBeGreaterThanOrEqual(server.startMs);
    // Input guardrails run before the upstream is tried.
    const attempt = children.find((span) => span.kind === CLIENT)!;
    expect(guardrail!.endMs).toBeLessThanOrEqual(attempt.startMs + 1);
  });

  it("marks a failed try and the failed request with error.type", async () => {
    const port = await freePort();
    const response = await call(gateway, "POST", "/v1/chat/completions", {
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "traced hello" }] },
      headers: { ...upstreamHeaders(gateway, upstream), "x-gateway-custom-host": `http://127.0.0.1:${port}/v1` },
    });
    expect(response.status).toBe(502);
    const { server, children } = await spansOf(response.headers.get("x-gateway-log-id")!);
    expect(server.attributes).toMatchObject({ "http.response.status_code": 502, "error.type": "upstream_unreachable" });
    expect(server.status.code).toBe(2);
    expect(children).toHaveLength(1);
    expect(children[0]!.attributes["error.type"]).toBe("upstream_unreachable");
    expect(children[0]!.attributes["http.response.status_code"]).toBeUndefined();
    expect(children[0]!.attributes["gen_ai.usage.input_tokens"]).toBeUndefined();
  });
});

describe("spans of a request tried on several targets", () => {
  it("makes one CLIENT span per try, in order, the answered one carrying the usage", async () => {
    const tracing = new OtlpRequestTracing({ url: `${receiver.url}/v1/traces`, headers: {}, serviceName: "fallback-test", serviceVersion: "0" });
    const createdAt = "2026-01-02T03:04:05.000Z";
    const start = Date.parse(createdAt);
    const entry: LogEntry = {
      id: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
      createdAt,
      organisationId: "org",
      workspaceId: "ws",
      apiKeyId: "key-1",
      virtualKeyId: "vk-1",
      provider: "groq",
      model: "llama-3.3-70b",
      route: "createChatCompletion",
      method: "POST",
      path: "/v1/chat/completions",
      status: 200,
      stream: false,
      latencyMs: 900,
      timeToFirstTokenMs: null,
      user: null,
      metadata: {},
      traceId: TRACE,
      spanId: null,
      parentSpanId: PARENT,
      spanName: null,
      requestBody: null,
      requestBodyTruncated: false,
      requestBodyBytes: null,
      response: null,
      errorCode: null,
      errorMessage: null,
      promptId: null,
      promptVersion: null,
      configId: null,
      configVersion: null,
      experimentId: null,
      experimentVariant: null,
      cacheStatus: null,
      cacheSimilarity: null,
      cacheSourceLogId: null,
      cacheNote: null,
      guardrailResults: null,
      format: "chat",
      genAiOperation: "chat",
      attempts: [
        { target: 0, path: "0", retry: 0, provider: "openai", model: "gpt-4o", status: 503, startedAt: start + 10, latencyMs: 100, errorCode: null, errorMessage: null },
        { target: 1, path: "1", retry: 0, provider: "groq", model: "llama-3.3-70b", status: 200, startedAt: start + 120, latencyMs: 300, errorCode: null, errorMessage: null },
      ],
      toolRun: [],
    };
    tracing.observe(entry, { inputTokens: 30, outputTokens: 7, costUsd: 0.0001, responseModel: "llama-3.3-70b-versatile" });
    await tracing.shutdown();
    const spans = receiver.spans.filter((span) => span.resource["service.name"] === "fallback-test");
    const server = spans.find((span) => span.kind === SERVER)!;
    expect(server).toMatchObject({ traceId: TRACE, parentSpanId: PARENT, startMs: start, endMs: start + 900 });
    expect(server.attributes).toMatchObject({ "gateway.virtual_key_id": "vk-1", "gateway.cost_usd": 0.0001, "gateway.attempts": 2 });
    const tries = spans.filter((span) => span.kind === CLIENT).sort((a, b) => a.startMs - b.startMs);
    expect(tries.map((span) => [span.name, span.parentSpanId, span.startMs, span.endMs])).toEqual([
      ["chat gpt-4o", server.spanId, start + 10, start + 110],
      // The answered try lasts until the answer was relayed, the request's end.
      ["chat llama-3.3-70b", server.spanId, start + 120, start + 900],
    ]);
    expect(tries[0]!.attributes).toMatchObject({ "gen_ai.provider.name": "openai", "http.response.status_code": 503, "error.type": "503" });
    expect(tries[0]!.attributes["gen_ai.usage.input_tokens"]).toBeUndefined();
    expect(tries[1]!.attributes).toMatchObject({
      "gen_ai.provider.name": "groq",
      "gen_ai.response.model": "llama-3.3-70b-versatile",
      "gen_ai.usage.input_tokens": 30,
      "gen_ai.usage.output_tokens": 7,
      "gateway.target_index": 1,
    });
    expect(tries[1]!.attributes["error.type"]).toBeUndefined();
  });
});
