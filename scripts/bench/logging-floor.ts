/**
 * The logging floor: the floor proxy plus what any gateway that logs every request must do, and
 * nothing else. It finds the caller by its key's SHA-256, reads and parses the JSON body, calls
 * the upstream with a timeout and client-abort, reads and parses the answer, and hands a log
 * entry to the gateway's own batch writer and log worker, which store it in the gateway's own
 * SQLite schema. The gateway's cost above this is its machinery (routing, configs, checks,
 * limits, cache, guardrails); this one's above the floor is the price of logging.
 *
 * Run as `PORT=n UPSTREAM=http://127.0.0.1:m LOG_DB=file:/path.db KEY=... bun scripts/bench/logging-floor.ts`,
 * on a store `openStore` has migrated (the bench does).
 */
import { createHash } from "node:crypto";
import { emptyOutcome, logEntryOf } from "../../src/logging/outcome.ts";
import { LogWriter } from "../../src/logging/log-writer.ts";
import { openWorkerLogSink } from "../../src/logging/worker-log-sink.ts";
import { isoNow, uuidv7 } from "../../src/lib/ids.ts";

const upstream = process.env.UPSTREAM ?? "http://127.0.0.1:1";
const TIMEOUT_MS = 60_000;
const MAX_LOGGED_BYTES = 1024 * 1024;
const keyHash = (key: string): string => createHash("sha256").update(key).digest("hex");
const callers = new Map([[keyHash(process.env.KEY ?? ""), { organisationId: "org-bench", workspaceId: "ws-bench", apiKeyId: "key-bench" }]]);

const worker = new Worker(new URL("../../src/logging/log-store-worker.ts", import.meta.url));
const sink = await openWorkerLogSink(worker, process.env.LOG_DB ?? "");
// Batched as the gateway batches by default (`GATEWAY_LOG_*` in src/config.ts).
const writer = new LogWriter(sink, { flushIntervalMs: 250, batchSize: 200, maxBatchSize: 5_000 });

const problem = (status: number, message: string): Response => Response.json({ error: { message } }, { status });

Bun.serve({
  hostname: "127.0.0.1",
  port: Number(process.env.PORT ?? 0),
  async fetch(request) {
    const startedAt = performance.now();
    const caller = callers.get(keyHash(request.headers.get("x-gateway-api-key") ?? ""));
    if (!caller) return problem(401, "unknown key");
    const { pathname, search } = new URL(request.url);
    const text = await request.text();
    const body = JSON.parse(text) as { model?: string; user?: string };

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
    const onClientAbort = (): void => controller.abort();
    request.signal.addEventListener("abort", onClientAbort, { once: true });
    const answer = await fetch(`${upstream}${pathname}${search}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: request.headers.get("authorization") ?? "" },
      body: text,
      signal: controller.signal,
      redirect: "manual",
    });
    const answerText = await answer.text();
    clearTimeout(timer);
    request.signal.removeEventListener("abort", onClientAbort);
    // Plain chat is what it is measured on; a stream (the bench's preflight sends one) is passed on whole.
    const contentType = answer.headers.get("content-type") ?? "application/json";
    const answerValue = (contentType.includes("json") ? JSON.parse(answerText) : {}) as { model?: string };

    const outcome = { ...emptyOutcome("chat", "chat"), provider: "openai", model: answerValue.model ?? body.model ?? null };
    outcome.request = { body: text, model: body.model ?? null, user: body.user ?? null, params: null };
    outcome.attempts = [{ target: 0, path: "", retry: 0, provider: "openai", model: body.model ?? null, status: answer.status, latencyMs: performance.now() - startedAt, errorCode: null, errorMessage: null }];
    const id = uuidv7();
    const facts = { ...caller, route: "createChatCompletion", method: "POST", path: pathname, traceId: null, spanId: null, parentSpanId: null, spanName: null, metadata: {} };
    const ending = { status: answer.status, error: null, response: { kind: "json-text" as const, text: answerText, totalBytes: Buffer.byteLength(answerText), truncated: false, tail: null }, firstTokenAt: performance.now() };
    writer.enqueue(logEntryOf({ id, createdAt: isoNow(), startedAt, traceId: id, facts }, outcome, ending, MAX_LOGGED_BYTES));
    return new Response(answerText, { status: answer.status, headers: { "content-type": contentType } });
  },
});

// Exits (and so writes a CPU profile when run under one) on the bench's SIGTERM.
process.on("SIGTERM", () => process.exit(0));
