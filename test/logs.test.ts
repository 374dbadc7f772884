import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { idTimeMs } from "../src/store/log-id-bound.ts";
import { LOG_STORES, type LogStoreSetup } from "./support/log-stores.ts";
import { call, startGateway, startUpstream, upstreamHeaders, type RunningGateway } from "./support/harness.ts";

// The same gateway, end to end, on each log store.
describe.each(LOG_STORES)("GET /v1/logs on $store", ({ setup }) => {
  let gateway: RunningGateway;
  let upstream: LLMock;
  let logStore: LogStoreSetup | undefined;

  beforeAll(async () => {
    upstream = await startUpstream();
    upstream.onMessage("hello", { content: "Hello back" });
    logStore = await setup();
    gateway = await startGateway(logStore.overrides);
    const send = (model: string, user: string, metadata: Record<string, string>, trace: string) =>
      call(gateway, "POST", "/v1/chat/completions", {
        body: { model, user, messages: [{ role: "user", content: "hello" }] },
        headers: { ...upstreamHeaders(gateway, upstream), "x-gateway-metadata": JSON.stringify(metadata), "x-gateway-trace-id": trace },
      });
    for (let i = 0; i < 7; i++) {
      const response = await send(i % 2 === 0 ? "gpt-4o-mini" : "gpt-4o", `user-${i % 3}`, { team: i < 4 ? "search" : "ads", run: String(i) }, `trace-${i}`);
      expect(response.status).toBe(200);
    }
    // One failure: an unknown provider.
    await call(gateway, "POST", "/v1/chat/completions", {
      body: { model: "gpt-4o", messages: [{ role: "user", content: "hello" }] },
      headers: { ...upstreamHeaders(gateway, upstream), "x-gateway-provider": "nope" },
    });
    await gateway.flushLogs();
  });

  afterAll(async () => {
    await gateway?.close();
    await upstream?.stop();
    await logStore?.cleanup();
  });

  const logs = (query: string, key?: string) => call(gateway, "GET", `/v1/logs${query}`, { key });

  describe("listing and reading", () => {
    it("lists newest first without bodies", async () => {
      const page = await logs("");
      expect(page.status).toBe(200);
      expect(page.body.object).toBe("list");
      expect(page.body.data).toHaveLength(8);
      expect(page.body.data[0].status).toBe(400);
      expect(page.body.data[0].error.code).toBe("unknown_provider");
      const ids = page.body.data.map((log: { id: string }) => log.id);
      expect([...ids].sort().reverse()).toEqual(ids);
      expect(page.body.data[1].request).toBeUndefined();
      // A log's id (a UUIDv7) holds the millisecond of its time: the store reads time ranges through the ids.
      for (const log of page.body.data as Array<{ id: string; created_at: string }>) expect(idTimeMs(log.id)).toBe(Date.parse(log.created_at));
    });

    it("filters by user, model, provider, status, success, trace id and metadata", async () => {
      expect((await logs("?user=user-0")).body.data).toHaveLength(3);
      expect((await logs("?model=gpt-4o")).body.data).toHaveLength(4);
      expect((await logs("?provider=openai")).body.data).toHaveLength(7);
      expect((await logs("?status=400")).body.data).toHaveLength(1);
      expect((await logs("?success=false")).body.data).toHaveLength(1);
      const traced = await logs("?trace_id=trace-3");
      expect(traced.body.data).toHaveLength(1);
      expect(traced.body.data[0].metadata).toEqual({ team: "search", run: "3" });
      expect((await logs("?metadata[team]=ads")).body.data).toHaveLength(3);
      expect((await logs("?metadata[team]=search&metadata[run]=2")).body.data).toHaveLength(1);
    });

    it("keeps a metadata key named __proto__, or holding a line break, and filters by it", async () => {
      // Another workspace, so the records counted by the other tests stay as they are.
      const key = (await call(gateway, "POST", "/v1/api-keys", { body: { name: "proto", role: "admin", workspace_id: crypto.randomUUID() } })).body.key;
      const sent = await call(gateway, "POST", "/v1/chat/completions", {
        key,
        body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] },
        headers: { ...upstreamHeaders(gateway, upstream, key), "x-gateway-metadata": '{"__proto__":"odd","team":"proto","two\\nlines":"x"}' },
      });
      expect(sent.status).toBe(200);
      await gateway.flushLogs();
      const listed = async (query: string) => (await call(gateway, "GET", `/v1/logs${query}`, { key })).body.data;
      const found = await listed("?metadata[__proto__]=odd");
      expect(found.map((log: { id: string }) => log.id)).toEqual([sent.headers.get("x-gateway-log-id")]);
      expect(Object.entries(found[0].metadata)).toEqual([["__proto__", "odd"], ["team", "proto"], ["two\nlines", "x"]]);
      expect(await listed("?metadata[__proto__]=other")).toHaveLength(0);
      expect((await listed("?metadata[two%0Alines]=x")).map((log: { id: string }) => log.id)).toEqual([sent.headers.get("x-gateway-log-id")]);
      expect(await listed("?metadata[two%0Alines]=y")).toHaveLength(0);
    });

    it("names the trace of a request sent without a trace id by its log id", async () => {
      const [untraced] = (await logs("?status=400")).body.data;
      expect(untraced.trace_id).toBe(untraced.id);
      const traced = await logs(`?trace_id=${untraced.id}`);
      expect(traced.body.data.map((log: { id: string }) => log.id)).toEqual([untraced.id]);
    });

    it("filters by time range", async () => {
      const all = (await logs("")).body.data;
      const oldest = all.at(-1).created_at;
      const future = new Date(Date.now() + 60_000).toISOString();
      expect((await logs(`?from=${encodeURIComponent(future)}`)).body.data).toHaveLength(0);
      expect((await logs(`?to=${encodeURIComponent(oldest)}`)).body.data).toHaveLength(0);
      expect((await logs(`?from=${encodeURIComponent(oldest)}`)).body.data).toHaveLength(8);
    });

    it("paginates with a cursor, without gaps or repeats", async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { body: { data: Array<{ id: string }>; has_more: boolean; next_cursor: string | null } } = await logs(
          `?limit=3${cursor ? `&cursor=${cursor}` : ""}`,
        );
        seen.push(...page.body.data.map((log) => log.id));
        expect(page.body.has_more).toBe(page.body.next_cursor !== null);
        cursor = page.body.next_cursor;
      } while (cursor);
      const all = (await logs("")).body.data.map((log: { id: string }) => log.id);
      expect(seen).toEqual(all);
    });

    it("returns one whole record with its bodies", async () => {
      const [first] = (await logs("?trace_id=trace-0")).body.data;
      const record = await call(gateway, "GET", `/v1/logs/${first.id}`);
      expect(record.status).toBe(200);
      expect(record.body.request.body).toMatchObject({ model: "gpt-4o-mini", user: "user-0" });
      expect(record.body.response.body.choices[0].message.content).toBe("Hello back");
      expect(record.body.usage.total_tokens).toBeGreaterThan(0);
    });

    it("rejects bad parameters with 400 and hides other workspaces' logs", async () => {
      expect((await logs("?limit=0")).status).toBe(400);
      expect((await logs("?limit=abc")).body.error.param).toBe("limit");
      expect((await logs("?cursor=nonsense")).body.error.param).toBe("cursor");
      expect((await logs("?from=yesterday")).body.error.param).toBe("from");
      expect((await call(gateway, "GET", "/v1/logs/not-a-uuid")).status).toBe(400);

      const other = await call(gateway, "POST", "/v1/api-keys", {
        body: { name: "elsewhere", role: "service", workspace_id: "5d1f0c47-2b0e-4f7a-9e43-2a8b8f3c1d20" },
      });
      const theirs = await logs("", other.body.key);
      expect(theirs.status).toBe(200);
      expect(theirs.body.data).toHaveLength(0);
      const [mine] = (await logs("?limit=1")).body.data;
      expect((await call(gateway, "GET", `/v1/logs/${mine.id}`, { key: other.body.key })).status).toBe(404);
    });
  });
});
