import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { call, startGateway, startUpstream, upstreamHeaders, type RunningGateway } from "./support/harness.ts";

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

const body = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] };
const chat = (headers: Record<string, string>, payload: unknown = body) =>
  call(gateway, "POST", "/v1/chat/completions", { body: payload, headers: { ...upstreamHeaders(gateway, upstream), ...headers } });

async function loggedRecord(logId: string | null) {
  await gateway.flushLogs();
  const record = await call(gateway, "GET", `/v1/logs/${logId}`);
  expect(record.status).toBe(200);
  return record.body;
}

describe("gateway headers are read by the routes' generated validators", () => {
  it.each([
    ["x-gateway-trace-id", "t".repeat(129)],
    ["x-gateway-span-id", "s".repeat(129)],
    ["x-gateway-parent-span-id", "p".repeat(129)],
    ["x-gateway-span-name", "n".repeat(257)],
  ])("%s past the document's maxLength → 400 naming the header, logged under the request's own trace", async (header, value) => {
    const response = await chat({ [header]: value });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: "invalid_request", param: header });
    expect(response.body.error.message).toContain(`Invalid header '${header}'`);
    const logId = response.headers.get("x-gateway-log-id");
    expect(response.headers.get("x-gateway-trace-id")).toBe(logId);
    const record = await loggedRecord(logId);
    expect(record.status).toBe(400);
    expect(record.trace_id).toBe(logId);
  });

  it("takes trace, spans and metadata at the document's bounds, whatever the case of the header names", async () => {
    const trace = "T".repeat(128);
    const spanName = "n".repeat(256);
    const response = await chat({
      "X-Gateway-Trace-Id": trace,
      "X-GATEWAY-SPAN-ID": "span-1",
      "x-gateway-parent-span-id": "span-0",
      "X-Gateway-Span-Name": spanName,
      "X-Gateway-Metadata": JSON.stringify({ team: "search" }),
      "x-some-other-header": "passes",
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-gateway-trace-id")).toBe(trace);
    const record = await loggedRecord(response.headers.get("x-gateway-log-id"));
    expect(record).toMatchObject({ trace_id: trace, span_id: "span-1", parent_span_id: "span-0", span_name: spanName, metadata: { team: "search" } });
  });

  it("a request refused for its body is still logged under the caller's trace and metadata", async () => {
    const response = await chat({ "x-gateway-trace-id": "trace-bad-body", "x-gateway-metadata": JSON.stringify({ team: "ads" }) }, { messages: [] });
    expect(response.status).toBe(400);
    expect(response.headers.get("x-gateway-trace-id")).toBe("trace-bad-body");
    const record = await loggedRecord(response.headers.get("x-gateway-log-id"));
    expect(record).toMatchObject({ status: 400, trace_id: "trace-bad-body", metadata: { team: "ads" } });
  });

  it("a prompt run reads the same headers: target, spans and timeout", async () => {
    const prompt = await call(gateway, "POST", "/v1/prompts", {
      body: { name: "greeter", model: "gpt-4o-mini", provider: "openai", messages: [{ role: "user", content: "hello" }] },
    });
    expect(prompt.status).toBe(201);
    const run = (headers: Record<string, string>) =>
      call(gateway, "POST", `/v1/prompts/${prompt.body.id}/completions`, { body: { variables: {} }, headers: { ...upstreamHeaders(gateway, upstream), ...headers } });
    const refused = await run({ "x-gateway-span-id": "s".repeat(129) });
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe("x-gateway-span-id");
    const response = await run({ "X-Gateway-Span-Id": "prompt-span", "x-gateway-trace-id": "prompt-trace", "x-gateway-request-timeout": "60000" });
    expect(response.status).toBe(200);
    const record = await loggedRecord(response.headers.get("x-gateway-log-id"));
    expect(record).toMatchObject({ trace_id: "prompt-trace", span_id: "prompt-span", prompt_id: prompt.body.id, provider: "openai" });
  });
});
