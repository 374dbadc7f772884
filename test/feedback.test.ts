import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startGateway, type RunningGateway } from "./support/harness.ts";
import { LOG_STORES, type LogStoreSetup } from "./support/log-stores.ts";

const OTHER_WORKSPACE = "5d1f0c47-2b0e-4f7a-9e43-2a8b8f3c1d20";

describe.each(LOG_STORES)("feedback on $store", ({ setup }) => {
  let gateway: RunningGateway;
  let logStore: LogStoreSetup | undefined;
  let serviceKey: string;
  let otherKey: string;

  beforeAll(async () => {
    logStore = await setup();
    gateway = await startGateway(logStore.overrides);
    serviceKey = (await call(gateway, "POST", "/v1/api-keys", { body: { name: "app", role: "service" } })).body.key;
    otherKey = (await call(gateway, "POST", "/v1/api-keys", { body: { name: "elsewhere", role: "service", workspace_id: OTHER_WORKSPACE } })).body.key;
  });

  afterAll(async () => {
    await gateway?.close();
    await logStore?.cleanup();
  });

  const send = (body: unknown, key?: string) => call(gateway, "POST", "/v1/feedback", { body, key });
  const list = (traceId: string, key?: string) => call(gateway, "GET", `/v1/feedback?trace_id=${encodeURIComponent(traceId)}`, { key });

  it("stores feedback from any key of the workspace and lists a trace's, oldest first", async () => {
    const traceId = `trace-${crypto.randomUUID()}`;
    const first = await send({ trace_id: traceId, value: 10, weight: 0.5, metadata: { source: "thumbs", "user id": "u-1" } }, serviceKey);
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      object: "feedback",
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      trace_id: traceId,
      value: 10,
      weight: 0.5,
      metadata: { source: "thumbs", "user id": "u-1" },
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await send({ trace_id: traceId, value: -10 });
    expect(second.body).toMatchObject({ value: -10, weight: 1, metadata: {} });
    await send({ trace_id: `${traceId}-other`, value: 1 });

    const listed = await list(traceId);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ object: "list", data: [first.body, second.body] });
    expect((await list(traceId, serviceKey)).body.data).toHaveLength(2);
    expect((await list(`trace-${crypto.randomUUID()}`)).body).toEqual({ object: "list", data: [] });
  });

  it("never shows one workspace's feedback to another", async () => {
    const traceId = `trace-${crypto.randomUUID()}`;
    const mine = await send({ trace_id: traceId, value: 3 });
    const theirs = await send({ trace_id: traceId, value: -3 }, otherKey);
    expect(theirs.status).toBe(201);
    expect((await list(traceId)).body.data.map((f: { id: string }) => f.id)).toEqual([mine.body.id]);
    expect((await list(traceId, otherKey)).body.data.map((f: { id: string }) => f.id)).toEqual([theirs.body.id]);
  });

  it("refuses bad bodies with the 400 envelope naming the field", async () => {
    const manyKeys = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, "v"]));
    const cases: Array<[unknown, string]> = [
      [{ value: 1 }, "trace_id"],
      [{ trace_id: "", value: 1 }, "trace_id"],
      [{ trace_id: "t".repeat(129), value: 1 }, "trace_id"],
      [{ trace_id: "t" }, "value"],
      [{ trace_id: "t", value: 11 }, "value"],
      [{ trace_id: "t", value: -11 }, "value"],
      [{ trace_id: "t", value: 1.5 }, "value"],
      [{ trace_id: "t", value: "1" }, "value"],
      [{ trace_id: "t", value: 1, weight: 1.01 }, "weight"],
      [{ trace_id: "t", value: 1, weight: -0.1 }, "weight"],
      [{ trace_id: "t", value: 1, metadata: { a: 1 } }, "metadata.a"],
      [{ trace_id: "t", value: 1, metadata: { a: "v".repeat(513) } }, "metadata.a"],
      [{ trace_id: "t", value: 1, metadata: manyKeys }, "metadata"],
      [{ trace_id: "t", value: 1, metadata: { ["k".repeat(65)]: "v" } }, "metadata"],
      [{ trace_id: "t", value: 1, extra: true }, ""],
    ];
    for (const [body, param] of cases) {
      const response = await send(body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(response.body.error).toMatchObject({ type: "invalid_request_error", code: expect.any(String), message: expect.any(String) });
      if (param !== "") expect(response.body.error.param, JSON.stringify(body).slice(0, 80)).toBe(param);
    }
    const malformed = await call(gateway, "POST", "/v1/feedback", { rawBody: "{not json" });
    expect(malformed.status).toBe(400);
    expect((await call(gateway, "GET", "/v1/feedback")).body.error.param).toBe("trace_id");
    expect((await call(gateway, "POST", "/v1/feedback", { body: { trace_id: "t", value: 1 }, key: "wrong" })).status).toBe(401);
    expect((await list("t")).body.data).toEqual([]);
  });
});
