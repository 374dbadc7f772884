import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI, { toFile } from "openai";
import { sql } from "kysely";
import { call, startGateway, type RunningGateway } from "./support/harness.ts";
import { startRawUpstream, writeWithBackpressure, type RawUpstream } from "./support/raw-upstream.ts";

/**
 * The gateway's own batches against a provider's batch API that misbehaves: an error that quotes
 * the credentials the gateway sent (the client's answer and the stored log hold none of them),
 * an answer that never ends (read up to the gateway's bound, then cut off with a 502), and one
 * that never comes (cut at the request's own timeout). The gateway keeps serving.
 */

const ANTHROPIC_KEY = "sk-ant-batch-echo-secret-0001";
const AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYBATCHECHO";
let gateway: RunningGateway;
let upstream: RawUpstream;
/** Bytes the endless upstream has written, and whether its client went away. */
const endless = { written: 0, closed: false };

beforeAll(async () => {
  upstream = await startRawUpstream((_body, res, req) => {
    if (req.url?.startsWith("/v1/slow/")) {
      // Answers long after any timeout the test sets; closed with the server.
      setTimeout(() => res.destroyed || res.end("{}"), 60_000).unref();
      return;
    }
    if (req.url?.startsWith("/v1/endless/")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.on("close", () => (endless.closed = true));
      const chunk = Buffer.from(`{"id":"msgbatch_1","padding":"${"x".repeat(64 * 1024)}`);
      writeWithBackpressure(res, {
        next: () => {
          endless.written += chunk.byteLength;
          return { done: false, value: chunk };
        },
      });
      return;
    }
    // A proxy in front of the provider that prints the request's credential headers in its error.
    const quoted = ["authorization", "x-api-key", "x-amz-content-sha256"].map((name) => `${name}=${String(req.headers[name] ?? "")}`).join(" ");
    res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ type: "error", error: { type: "api_error", message: `upstream failed for ${quoted}` }, message: `upstream failed for ${quoted}` }));
  });
  gateway = await startGateway({ GATEWAY_MAX_RESPONSE_BUFFER_BYTES: 1024 * 1024 });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const line = (model: string) => JSON.stringify({ custom_id: "a", method: "POST", url: "/v1/chat/completions", body: { model, max_tokens: 10, messages: [{ role: "user", content: "hi" }] } });

async function createWith(headers: Record<string, string>, model: string): Promise<{ status: number; body: any; headers: Headers }> {
  const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gateway-api-key": gateway.adminKey, ...headers } });
  const file = await client.files.create({ file: await toFile(Buffer.from(`${line(model)}\n`), "input.jsonl"), purpose: "batch" });
  return call(gateway, "POST", "/v1/batches", { body: { input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" }, headers: { "x-gateway-api-key": gateway.adminKey, ...headers } });
}

async function storedText(logId: string): Promise<string> {
  await gateway.flushLogs();
  const { rows } = await sql<{ response_body: string | null; error_message: string | null }>`select response_body, error_message from logs where id = ${logId}`.execute(gateway.gateway.deps.store.db);
  expect(rows).toHaveLength(1);
  return JSON.stringify(rows[0]);
}

describe("a batch provider that echoes the credentials it was sent", () => {
  it("Anthropic: the error reaches the client and the log with the key redacted", async () => {
    const answer = await createWith({ "x-gateway-provider": "anthropic", "x-gateway-custom-host": upstream.url, authorization: `Bearer ${ANTHROPIC_KEY}` }, "claude-sonnet-4-5");
    expect(answer.status).toBeGreaterThanOrEqual(500);
    expect(answer.body.error.message).toContain("[redacted]");
    expect(JSON.stringify(answer.body)).not.toContain(ANTHROPIC_KEY);
    expect(await storedText(answer.headers.get("x-gateway-log-id")!)).not.toContain(ANTHROPIC_KEY);
  });

  it("Bedrock: the signature and access key of the S3 write are redacted", async () => {
    const answer = await createWith(
      {
        "x-gateway-provider": "bedrock",
        "x-gateway-custom-host": upstream.url,
        "x-gateway-aws-access-key-id": "AKIAIOSFODNN7BATCHECHO",
        "x-gateway-aws-secret-access-key": AWS_SECRET,
        "x-gateway-aws-region": "us-east-1",
        "x-gateway-aws-batch-bucket": "batch-bucket",
        "x-gateway-aws-batch-role-arn": "arn:aws:iam::123456789012:role/BedrockBatch",
      },
      "anthropic.claude-3-5-haiku-20241022-v1:0",
    );
    expect(answer.status).toBeGreaterThanOrEqual(500);
    const text = JSON.stringify(answer.body);
    expect(text).toContain("[redacted]");
    expect(text).not.toContain("AKIAIOSFODNN7BATCHECHO");
    expect(text).not.toMatch(/Signature=[0-9a-f]{16}/);
    const stored = await storedText(answer.headers.get("x-gateway-log-id")!);
    expect(stored).not.toContain("AKIAIOSFODNN7BATCHECHO");
    expect(stored).not.toMatch(/Signature=[0-9a-f]{16}/);
    expect((await call(gateway, "GET", "/health")).status).toBe(200);
  });
});

describe("a batch provider whose answer never ends", () => {
  it("is read up to GATEWAY_MAX_RESPONSE_BUFFER_BYTES, cut off, and answered 502", async () => {
    const answer = await createWith({ "x-gateway-provider": "anthropic", "x-gateway-custom-host": `${upstream.url}/endless/v1`, authorization: `Bearer ${ANTHROPIC_KEY}` }, "claude-sonnet-4-5");
    expect(answer.status).toBe(502);
    expect(answer.body.error).toMatchObject({ type: "upstream_error", code: "upstream_error" });
    expect(answer.body.error.message).toContain("GATEWAY_MAX_RESPONSE_BUFFER_BYTES");
    await expect.poll(() => endless.closed).toBe(true);
    expect(endless.written).toBeLessThan(64 * 1024 * 1024);
    expect((await call(gateway, "GET", "/health")).status).toBe(200);
  });
});

describe("a batch provider whose results are broken", () => {
  let broken: RawUpstream;
  /** The results file the stand-in serves once the batch has ended. */
  let results = "";

  beforeAll(async () => {
    // Anthropic's Message Batches shapes (https://docs.anthropic.com/en/api/creating-message-batches), ended at once.
    broken = await startRawUpstream((_body, res, req) => {
      res.writeHead(200, { "content-type": req.url?.endsWith("/results") ? "application/x-jsonl" : "application/json" });
      if (req.url?.endsWith("/results")) return res.end(results);
      const view = { id: "msgbatch_broken", type: "message_batch", processing_status: req.method === "POST" ? "in_progress" : "ended", request_counts: { processing: 0, succeeded: 2, errored: 0, canceled: 0, expired: 0 } };
      res.end(JSON.stringify({ ...view, results_url: req.method === "POST" ? null : `${broken.url}/messages/batches/msgbatch_broken/results` }));
    });
  });

  afterAll(async () => {
    await broken?.close();
  });

  const message = (text: string) => ({ id: `msg_${text}`, type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text }], stop_reason: "end_turn", usage: { input_tokens: 10, output_tokens: 2 } });

  async function finish(lines: string[]): Promise<{ batch: any; answer: { status: number; body: any } }> {
    const headers = { "x-gateway-provider": "anthropic", "x-gateway-custom-host": broken.url, authorization: `Bearer ${ANTHROPIC_KEY}` };
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gateway-api-key": gateway.adminKey, ...headers } });
    const file = await client.files.create({ file: await toFile(Buffer.from(`${lines.join("\n")}\n`), "input.jsonl"), purpose: "batch" });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
    const answer = await call(gateway, "GET", `/v1/batches/${batch.id}`, { headers: { "x-gateway-api-key": gateway.adminKey, ...headers } });
    return { batch, answer };
  }

  const input = (customId: string) => JSON.stringify({ custom_id: customId, method: "POST", url: "/v1/chat/completions", body: { model: "claude-sonnet-4-5", max_tokens: 10, messages: [{ role: "user", content: "hi" }] } });

  it("a request answered twice is in the output and the log once, and the counts add up", async () => {
    results = [
      JSON.stringify({ custom_id: "a", result: { type: "succeeded", message: message("first") } }),
      JSON.stringify({ custom_id: "a", result: { type: "succeeded", message: message("again") } }),
      JSON.stringify({ custom_id: "b", result: { type: "succeeded", message: message("bee") } }),
    ].join("\n");
    const { batch, answer } = await finish([input("a"), input("b")]);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: "completed", request_counts: { total: 2, completed: 2, failed: 0 } });
    const output = await call(gateway, "GET", `/v1/files/${answer.body.output_file_id}/content`, { headers: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "anthropic" } });
    const customIds = String(output.body).trim().split("\n").map((text) => (JSON.parse(text) as { custom_id: string }).custom_id);
    expect(customIds.sort()).toEqual(["a", "b"]);
    await gateway.flushLogs();
    const { rows } = await sql<{ custom_id: string }>`select json_extract(metadata, '$.custom_id') as custom_id from logs where route = 'createBatch' and json_extract(metadata, '$.batch_id') = ${batch.id}`.execute(gateway.gateway.deps.store.db);
    expect(rows.map((row) => row.custom_id).sort()).toEqual(["a", "b"]);
  });
});

describe("a batch provider that does not answer", () => {
  it("is cut off at the request's x-gateway-request-timeout with a 408, not at the gateway's default", async () => {
    const started = performance.now();
    const answer = await createWith({ "x-gateway-provider": "anthropic", "x-gateway-custom-host": `${upstream.url}/slow/v1`, authorization: `Bearer ${ANTHROPIC_KEY}`, "x-gateway-request-timeout": "300" }, "claude-sonnet-4-5");
    expect(answer.status).toBe(408);
    expect(answer.body.error).toMatchObject({ type: "timeout_error", code: "request_timeout" });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect((await call(gateway, "GET", "/health")).status).toBe(200);
  });
});
