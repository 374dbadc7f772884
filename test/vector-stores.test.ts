import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { call, startGateway, storedLog, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startRecordingUpstream, type RecordingUpstream } from "./support/recording-upstream.ts";

/** Vector stores, their files and file batches as documented operations, each reaching its upstream path as sent. */

let gateway: RunningGateway;
let recorder: RecordingUpstream;

beforeAll(async () => {
  recorder = await startRecordingUpstream((request) => {
    const path = request.path.split("?")[0]!;
    if (path.endsWith("/search")) return { object: "vector_store.search_results.page", search_query: ["cats"], data: [{ file_id: "file_1", score: 0.9 }], has_more: false, next_page: null };
    if (path.endsWith("/content")) return { object: "vector_store.file_content.page", data: [{ type: "text", text: "hello" }], has_more: false, next_page: null };
    if (request.method === "GET" && (path.endsWith("/files") || path === "/v1/vector_stores")) return { object: "list", data: [], first_id: null, last_id: null, has_more: false };
    if (request.method === "DELETE") return { id: path.split("/").at(-1), object: "vector_store.deleted", deleted: true };
    if (path.includes("/file_batches")) return { id: "vsfb_1", object: "vector_store.files_batch", vector_store_id: "vs_1", status: path.endsWith("/cancel") ? "cancelling" : "in_progress" };
    if (path.includes("/files")) return { id: "file_1", object: "vector_store.file", vector_store_id: "vs_1", status: "completed" };
    return { id: "vs_1", object: "vector_store", name: "docs", status: "completed", created_at: 1 };
  });
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await recorder?.close();
});

const headers = () => ({ "x-gateway-provider": "openai", "x-gateway-custom-host": recorder.url, Authorization: `Bearer ${UPSTREAM_KEY}` });

/** Each operation: method, path with query, JSON body (or none), and the route it is logged under. */
const OPERATIONS: [string, string, object | undefined, string][] = [
  ["POST", "/v1/vector_stores", { name: "docs", file_ids: ["file_1"], metadata: { team: "a" } }, "createVectorStore"],
  ["GET", "/v1/vector_stores?limit=2&order=asc&after=vs_0&before=vs_9", undefined, "listVectorStores"],
  ["GET", "/v1/vector_stores/vs_1", undefined, "getVectorStore"],
  ["POST", "/v1/vector_stores/vs_1", { name: "renamed", expires_after: { anchor: "last_active_at", days: 7 } }, "modifyVectorStore"],
  ["DELETE", "/v1/vector_stores/vs_1", undefined, "deleteVectorStore"],
  ["POST", "/v1/vector_stores/vs_1/search", { query: "cats", max_num_results: 3, filters: { type: "eq", key: "team", value: "a" } }, "searchVectorStore"],
  ["GET", "/v1/vector_stores/vs_1/files?limit=10&filter=completed", undefined, "listVectorStoreFiles"],
  ["POST", "/v1/vector_stores/vs_1/files", { file_id: "file_1", attributes: { team: "a" } }, "createVectorStoreFile"],
  ["GET", "/v1/vector_stores/vs_1/files/file_1", undefined, "getVectorStoreFile"],
  ["POST", "/v1/vector_stores/vs_1/files/file_1", { attributes: { team: "b" } }, "updateVectorStoreFileAttributes"],
  ["DELETE", "/v1/vector_stores/vs_1/files/file_1", undefined, "deleteVectorStoreFile"],
  ["GET", "/v1/vector_stores/vs_1/files/file_1/content", undefined, "retrieveVectorStoreFileContent"],
  ["POST", "/v1/vector_stores/vs_1/file_batches", { file_ids: ["file_1", "file_2"] }, "createVectorStoreFileBatch"],
  ["GET", "/v1/vector_stores/vs_1/file_batches/vsfb_1", undefined, "getVectorStoreFileBatch"],
  ["POST", "/v1/vector_stores/vs_1/file_batches/vsfb_1/cancel", undefined, "cancelVectorStoreFileBatch"],
  ["GET", "/v1/vector_stores/vs_1/file_batches/vsfb_1/files?order=desc&filter=failed", undefined, "listFilesInVectorStoreBatch"],
];

describe("vector stores", () => {
  it.each(OPERATIONS)("%s %s reaches its upstream path with its query and body, logged unpriced", async (method, path, body, route) => {
    const response = await call(gateway, method, path, { body, headers: { ...headers(), "openai-beta": "assistants=v2" } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const sent = recorder.received.at(-1)!;
    expect(sent).toMatchObject({ method, path });
    expect(sent.headers["openai-beta"]).toBe("assistants=v2");
    expect(sent.body.length === 0 ? undefined : JSON.parse(sent.body.toString())).toEqual(body);
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route, method, provider: "openai", status: 200, costUsd: null, totalTokens: 0 });
  });

  it("works with the official client: create, search, add a file, read its content", async () => {
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: UPSTREAM_KEY, maxRetries: 0, defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": recorder.url } });
    const store = await client.vectorStores.create({ name: "docs" });
    expect(store).toMatchObject({ id: "vs_1", object: "vector_store" });
    const results = await client.vectorStores.search(store.id, { query: ["cats", "dogs"] });
    expect(results.data[0]).toMatchObject({ file_id: "file_1" });
    expect(JSON.parse(recorder.received.at(-1)!.body.toString())).toEqual({ query: ["cats", "dogs"] });
    const file = await client.vectorStores.files.create(store.id, { file_id: "file_1" });
    expect(file).toMatchObject({ object: "vector_store.file", status: "completed" });
    const content = await client.vectorStores.files.content(file.id, { vector_store_id: store.id });
    expect(content.data).toEqual([{ type: "text", text: "hello" }]);
    expect(recorder.received.at(-1)).toMatchObject({ method: "GET", path: "/v1/vector_stores/vs_1/files/file_1/content" });
  });

  it("refuses a JSON body missing a required field with 400 naming it, before any upstream call", async () => {
    const before = recorder.received.length;
    for (const [path, body, param, route] of [
      ["/v1/vector_stores/vs_1/search", { max_num_results: 3 }, "query", "searchVectorStore"],
      ["/v1/vector_stores/vs_1/files", { attributes: {} }, "file_id", "createVectorStoreFile"],
      ["/v1/vector_stores/vs_1/files/file_1", {}, "attributes", "updateVectorStoreFileAttributes"],
    ] as const) {
      const refused = await call(gateway, "POST", path, { body, headers: headers() });
      expect(refused.status, path).toBe(400);
      expect(refused.body.error).toMatchObject({ code: "invalid_request", param });
      expect(await storedLog(gateway, refused.headers.get("x-gateway-log-id")!)).toMatchObject({ route, status: 400 });
    }
    const badLimit = await call(gateway, "GET", "/v1/vector_stores?limit=lots", { headers: headers() });
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.error).toMatchObject({ param: "limit" });
    expect(recorder.received.length).toBe(before);
  });
});
