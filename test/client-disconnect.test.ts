import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DEFAULT_WORKSPACE_ID } from "../src/control-plane/auth-context.ts";
import type { LogRecord } from "../src/records/log-record.ts";
import { startGateway, storedLog, type RunningGateway } from "./support/harness.ts";

/**
 * A client that leaves aborts the upstream call, whatever the operation is doing: waiting for a
 * JSON answer, relaying a stream or a binary answer, or sending an upload. The upstream is a
 * plain `node:http` server that records when its request was cut off before it finished.
 */

interface Seen {
  /** Resolves once the upstream has the request (and, for an upload, its first bytes). */
  started: Promise<void>;
  /** Resolves with the time the upstream's request or answer was closed before it finished. */
  aborted: Promise<number>;
}

let gateway: RunningGateway;
let upstream: Server;
let upstreamUrl: string;
const seen: Seen[] = [];

function record(request: IncomingMessage, response: ServerResponse): { started: () => void } {
  let started: () => void = () => undefined;
  let aborted: (at: number) => void = () => undefined;
  seen.push({ started: new Promise((resolve) => (started = resolve)), aborted: new Promise((resolve) => (aborted = resolve)) });
  const cut = (): void => {
    if (!response.writableFinished) aborted(performance.now());
  };
  request.on("close", () => {
    if (!request.complete) aborted(performance.now());
  });
  response.on("close", cut);
  request.on("error", () => undefined);
  return { started };
}

beforeAll(async () => {
  upstream = createServer((request, response) => {
    const { started } = record(request, response);
    const path = request.url ?? "";
    if (path.endsWith("/files")) {
      // An upload: read as it comes, never answered before the end.
      request.once("data", () => started());
      request.resume();
      return;
    }
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      if (path.endsWith("/audio/speech")) {
        response.writeHead(200, { "content-type": "audio/mpeg" });
        response.write(new Uint8Array(4096));
      } else if (path.endsWith("/chat/completions") && (JSON.parse(body) as { stream?: boolean }).stream === true) {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.write(`data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: null }] })}\n\n`);
      }
      // A JSON answer never comes: the upstream is still "thinking".
      started();
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  upstream?.closeAllConnections();
  await new Promise((resolve) => upstream?.close(resolve));
});

const headers = (contentType: string, traceId: string): Record<string, string> => ({
  "x-gateway-api-key": gateway.adminKey,
  "x-gateway-trace-id": traceId,
  "x-gateway-provider": "openai",
  "x-gateway-custom-host": upstreamUrl,
  "content-type": contentType,
});

const chat = (stream: boolean) => JSON.stringify({ model: "gpt-4o-mini", stream, messages: [{ role: "user", content: "hi" }] });

/** Sends a request, waits for the upstream to have it, then leaves; returns how long the upstream took to see it. */
async function leaveAfterStart(path: string, init: RequestInit, readFirst: boolean): Promise<number> {
  const count = seen.length;
  const controller = new AbortController();
  const responded = fetch(`${gateway.url}${path}`, { ...init, method: "POST", signal: controller.signal });
  if (readFirst) {
    const response = await responded;
    expect(response.status).toBe(200);
    await response.body!.getReader().read();
  } else {
    responded.catch(() => undefined);
  }
  while (seen.length === count) await new Promise((resolve) => setTimeout(resolve, 5));
  await seen[count]!.started;
  const leftAt = performance.now();
  controller.abort();
  const abortedAt = await Promise.race([seen[count]!.aborted, new Promise<number>((resolve) => setTimeout(() => resolve(Number.POSITIVE_INFINITY), 3000))]);
  return abortedAt - leftAt;
}

/** The log record of the request with this trace id, once the gateway has finished and written it. */
async function loggedTrace(traceId: string): Promise<LogRecord> {
  for (let attempt = 0; attempt < 100; attempt++) {
    await gateway.flushLogs();
    const { records } = await gateway.gateway.deps.store.logs.list({ workspaceId: DEFAULT_WORKSPACE_ID, traceId, limit: 1 });
    // A listed record leaves the bodies out; the full record has them.
    if (records[0]) return storedLog(gateway, records[0].id);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no log record for trace ${traceId}`);
}

describe("a client that disconnects aborts the upstream call, within a second, logged as client_closed (499)", () => {
  it("while the gateway waits for a JSON answer", async () => {
    const delayMs = await leaveAfterStart("/v1/chat/completions", { headers: headers("application/json", "leave-json"), body: chat(false) }, false);
    expect(delayMs).toBeLessThan(1000);
    expect(await loggedTrace("leave-json")).toMatchObject({ status: 499, errorCode: "client_closed", stream: false });
  });

  it("while a stream is relayed", async () => {
    const delayMs = await leaveAfterStart("/v1/chat/completions", { headers: headers("application/json", "leave-sse"), body: chat(true) }, true);
    expect(delayMs).toBeLessThan(1000);
    expect(await loggedTrace("leave-sse")).toMatchObject({ status: 499, errorCode: "client_closed", stream: true });
  });

  it("while a binary answer is relayed", async () => {
    const body = JSON.stringify({ model: "tts-1", voice: "alloy", input: "Hello there." });
    const delayMs = await leaveAfterStart("/v1/audio/speech", { headers: headers("application/json", "leave-audio"), body }, true);
    expect(delayMs).toBeLessThan(1000);
    expect(await loggedTrace("leave-audio")).toMatchObject({ route: "createSpeech", status: 499, errorCode: "client_closed" });
  });

  it("while an upload is sent", async () => {
    const boundary = "disconnect-boundary";
    const head = new TextEncoder().encode(`--${boundary}\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="a.jsonl"\r\n\r\n`);
    // The rest of the file never comes: the client leaves mid-upload.
    const body = new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(head) });
    const init = { headers: headers(`multipart/form-data; boundary=${boundary}`, "leave-upload"), body, duplex: "half" } as RequestInit;
    const delayMs = await leaveAfterStart("/v1/files", init, false);
    expect(delayMs).toBeLessThan(1000);
    const record = await loggedTrace("leave-upload");
    expect(record).toMatchObject({ route: "createFile", status: 499, errorCode: "client_closed" });
    // The upload's size is never final: it was not sent whole.
    expect(JSON.parse(record.requestBody!)).toMatchObject({ content_type: `multipart/form-data; boundary=${boundary}`, size_bytes: null });
    expect(record.requestBodyBytes).toBeNull();
  });
});
