import { describe, expect, it } from "vitest";
import { computeCostUsd } from "../operation/cost.ts";
import { packLogEntry, unpackLogEntry, type LogEntry, type LoggedResponse } from "./log-entry.ts";
import { BodyCapture } from "../lib/body-capture.ts";
import { lastObjectValue, storeLogSink, toLogRecord } from "./log-record-builder.ts";

function entry(overrides: Partial<LogEntry> = {}): LogEntry {
  return {
    id: "0190f000-0000-7000-8000-000000000001",
    createdAt: "2026-11-22T12:00:00.000Z",
    organisationId: "org",
    workspaceId: "ws",
    apiKeyId: "key",
    virtualKeyId: null,
    provider: "openai",
    model: "gpt-4o-mini",
    route: "createChatCompletion",
    method: "POST",
    path: "/v1/chat/completions",
    status: 200,
    stream: false,
    cacheStatus: null,
    cacheSimilarity: null,
    cacheSourceLogId: null,
    cacheNote: null,
    latencyMs: 1.5,
    timeToFirstTokenMs: 1.2,
    user: "u-1",
    metadata: { team: "search" },
    traceId: "trace-1",
    spanId: null,
    parentSpanId: null,
    spanName: null,
    requestBody: '{"model":"gpt-4o-mini","messages":[]}',
    requestBodyTruncated: false,
    requestBodyBytes: 37,
    response: null,
    errorCode: null,
    errorMessage: null,
    promptId: null,
    promptVersion: null,
    configId: null,
    configVersion: null,
    experimentId: null,
    experimentVariant: null,
    guardrailResults: null,
    attempts: [],
    toolRun: [],
    format: "chat",
    genAiOperation: "chat",
    ...overrides,
  };
}

function jsonText(text: string): LoggedResponse {
  return { kind: "json-text", text, totalBytes: Buffer.byteLength(text), truncated: false, tail: null };
}

function stream(chunks: string[]): LoggedResponse {
  return { kind: "stream", chunks, totalBytes: chunks.join("").length, truncated: false, maxBytes: 1024 * 1024 };
}

const usage = { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500, prompt_tokens_details: { cached_tokens: 200 }, completion_tokens_details: { reasoning_tokens: 50 } };

describe("packLogEntry / unpackLogEntry", () => {
  it("round-trips every field and every kind of response, through a structured clone as a worker receives it", () => {
    const originals = [
      entry({ response: stream(["{}", "{\"a\":1}"]), guardrailResults: [{ verdict: true }], promptVersion: 3 }),
      entry({ response: jsonText("{\"id\":\"x\"}"), metadata: {} }),
      entry({ response: { kind: "error", body: { error: { message: "m", code: "c" } } }, errorCode: "c", errorMessage: "m", status: 502 }),
      entry({ response: null, user: null, metadata: { a: "1", b: "2" } }),
      entry({ response: jsonText("{}"), format: "json", genAiOperation: null, attempts: [{ target: 1, path: "1", retry: 2, provider: "p", model: null, status: null, latencyMs: 3, errorCode: "e", errorMessage: "m" }] }),
    ];
    for (const original of originals) {
      const packed = structuredClone(packLogEntry(original));
      expect(Array.isArray(packed)).toBe(true);
      expect(unpackLogEntry(packed)).toEqual(original);
    }
  });
});

describe("toLogRecord", () => {
  it("keeps the response text, counts its tokens and prices the served model", () => {
    const text = JSON.stringify({ id: "c", object: "chat.completion", model: "gpt-4o-mini-2024-07-18", choices: [], usage });
    const record = toLogRecord(entry({ response: jsonText(text) }));
    expect(record.responseBody).toBe(text);
    expect(record).toMatchObject({ promptTokens: 1000, completionTokens: 500, totalTokens: 1500, cachedTokens: 200, reasoningTokens: 50, success: true });
    const expected = computeCostUsd("openai", "gpt-4o-mini-2024-07-18", { promptTokens: 1000, completionTokens: 500, totalTokens: 1500, cachedTokens: 200, reasoningTokens: 50 });
    expect(expected).toBeGreaterThan(0);
    expect(record.costUsd).toBe(expected);
    expect(record.requestBody).toBe('{"model":"gpt-4o-mini","messages":[]}');
    expect(record.metadata).toEqual({ team: "search" });
  });

  it("assembles a stream's chunks into one completion with the usage chunk's tokens", () => {
    const chunk = (delta: object, extra: object = {}) =>
      JSON.stringify({ id: "c", object: "chat.completion.chunk", model: "gpt-4o-mini", choices: [{ index: 0, delta, finish_reason: null }], ...extra });
    const chunks = [chunk({ role: "assistant", content: "Hel" }), chunk({ content: "lo" }), JSON.stringify({ id: "c", object: "chat.completion.chunk", model: "gpt-4o-mini", choices: [], usage })];
    const record = toLogRecord(entry({ stream: true, response: stream(chunks) }));
    const completion = JSON.parse(record.responseBody ?? "null");
    expect(completion.object).toBe("chat.completion");
    expect(completion.choices[0].message.content).toBe("Hello");
    expect(record.totalTokens).toBe(1500);
    expect(record.costUsd).toBeGreaterThan(0);
  });

  it("records an error: its body, code and message, no tokens, no cost, not a success", () => {
    const body = { error: { message: "Rate limited", type: "rate_limit_error", code: "rate_limited", param: null } };
    const record = toLogRecord(entry({ status: 429, response: { kind: "error", body }, errorCode: "rate_limited", errorMessage: "Rate limited" }));
    expect(JSON.parse(record.responseBody ?? "null")).toEqual(body);
    expect(record).toMatchObject({ success: false, errorCode: "rate_limited", errorMessage: "Rate limited", totalTokens: 0, costUsd: null });
  });

  it("counts an error with a 200 status (a stream that failed midway) as a failure", () => {
    expect(toLogRecord(entry({ errorCode: null, errorMessage: "upstream stream ended early" })).success).toBe(false);
  });

  it("survives a response that is not JSON, and serialises guardrail results", () => {
    const record = toLogRecord(entry({ response: jsonText("not json"), guardrailResults: [{ id: "g", verdict: false }] }));
    expect(record.responseBody).toBe("not json");
    expect(record.totalTokens).toBe(0);
    expect(record.costUsd).toBeNull();
    expect(JSON.parse(record.guardrailResults ?? "null")).toEqual([{ id: "g", verdict: false }]);
  });

  it("reads usage from the tail and the served model from the head of an answer kept only in part", () => {
    const content = "x".repeat(200_000);
    const text = JSON.stringify({ id: "c", object: "chat.completion", model: "gpt-4o-mini-2024-07-18", choices: [{ index: 0, message: { role: "assistant", content } }], usage, system_fingerprint: "fp" });
    const capture = new BodyCapture(1000);
    const bytes = new TextEncoder().encode(text);
    for (let at = 0; at < bytes.length; at += 4096) capture.add(bytes.subarray(at, at + 4096));
    const captured = capture.result();
    const record = toLogRecord(entry({ response: { kind: "json-text", text: captured.head, totalBytes: captured.totalBytes, truncated: true, tail: captured.tail } }));
    expect(record.responseBody).toBe(text.slice(0, 1000));
    expect(record).toMatchObject({ responseBodyTruncated: true, responseBodyBytes: bytes.length, totalTokens: 1500, reasoningTokens: 50 });
    expect(record.costUsd).toBe(computeCostUsd("openai", "gpt-4o-mini-2024-07-18", { promptTokens: 1000, completionTokens: 500, totalTokens: 1500, cachedTokens: 200, reasoningTokens: 50 }));
  });

  it("cuts a stream's assembled body to the limit and flags it, keeping the usage", () => {
    const chunks = [
      JSON.stringify({ id: "c", model: "gpt-4o-mini", choices: [{ index: 0, delta: { content: "y".repeat(5000) } }] }),
      JSON.stringify({ id: "c", model: "gpt-4o-mini", choices: [], usage }),
    ];
    const record = toLogRecord(entry({ stream: true, response: { kind: "stream", chunks, totalBytes: 9999, truncated: false, maxBytes: 2000 } }));
    expect(Buffer.byteLength(record.responseBody ?? "")).toBeLessThanOrEqual(2000);
    expect(record).toMatchObject({ responseBodyTruncated: true, responseBodyBytes: 9999, totalTokens: 1500 });
  });
});

describe("lastObjectValue", () => {
  it("finds the last object of a key, braces inside strings ignored", () => {
    expect(lastObjectValue('{"usage":{"a":1},"x":"\\"usage\\": {","usage":{"b":"}{","c":{"d":2}}}', "usage")).toBe('{"b":"}{","c":{"d":2}}');
    expect(lastObjectValue('"usage": {"a": 1', "usage")).toBeNull();
    expect(lastObjectValue("nothing", "usage")).toBeNull();
  });
});

describe("storeLogSink", () => {
  it("builds a big batch a slice at a time, letting requests in between, and stores it whole", async () => {
    const stored: number[] = [];
    const sink = storeLogSink({ insertBatch: async (records) => void stored.push(records.length), ping: async () => undefined });
    const entries = Array.from({ length: 1_000 }, (_, i) => entry({ id: `0190f000-0000-7000-8000-${String(i).padStart(12, "0")}` }));
    const writing = sink.insertBatch(entries, true);
    // A request's callback queued once the batch has started: it must run before the batch is built.
    let storedBeforeIt: number | undefined;
    setImmediate(() => (storedBeforeIt = stored.length));
    const figures = await writing;
    expect(storedBeforeIt).toBe(0);
    expect(stored).toEqual([1_000]);
    expect(figures).toHaveLength(1_000);
  });
});
