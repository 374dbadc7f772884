import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { postgresTestUrl, type TestDatabase } from "./support/databases.ts";
import { call, startGateway, startUpstream, storedLog, upstreamHeaders, type RunningGateway } from "./support/harness.ts";

/**
 * PostgreSQL text cannot hold U+0000, which any JSON string may carry. A caller who sends one
 * (an end user, a feedback trace id) must neither get a 500 nor make the log writer drop the
 * batch its record is in, with other callers' records.
 */
describe("U+0000 in request values on PostgreSQL", () => {
  let database: TestDatabase;
  let gateway: RunningGateway;
  let upstream: LLMock;

  beforeAll(async () => {
    database = await postgresTestUrl();
    upstream = await startUpstream();
    upstream.onMessage("hello", { content: "Hello back" });
    gateway = await startGateway({ GATEWAY_DATABASE_URL: database.url, GATEWAY_LOG_FLUSH_INTERVAL_MS: 200 });
  });

  afterAll(async () => {
    await gateway?.close();
    await upstream?.stop();
    await database?.cleanup();
  });

  it("logs a request whose end user holds U+0000, and the requests batched with it", async () => {
    const chat = (user: string) =>
      call(gateway, "POST", "/v1/chat/completions", { body: { model: "gpt-4o-mini", user, messages: [{ role: "user", content: "hello" }] }, headers: upstreamHeaders(gateway, upstream) });
    const answers = await Promise.all([chat("alice"), chat("bad\u0000user"), chat("bob")]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    const logs = await Promise.all(answers.map((answer) => storedLog(gateway, answer.headers.get("x-gateway-log-id")!)));
    expect(logs.map((log) => log.user)).toEqual(["alice", "bad\uFFFDuser", "bob"]);
  });

  it("stores feedback whose trace id holds U+0000, and finds it by that id", async () => {
    const traceId = `trace-${crypto.randomUUID()}\u0000`;
    const created = await call(gateway, "POST", "/v1/feedback", { body: { trace_id: traceId, value: 1 } });
    expect(created.status).toBe(201);
    const listed = await call(gateway, "GET", `/v1/feedback?trace_id=${encodeURIComponent(traceId)}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(1);
  });
});
