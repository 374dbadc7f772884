import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI, { toFile } from "openai";
import { call, openaiClient, startGateway, startUpstream, storedLog, upstreamHeaders, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { openaiContractProblems } from "./support/contract.ts";
import { startRecordingUpstream, type RecordingUpstream } from "./support/recording-upstream.ts";

/** Files and uploads as documented operations: multipart bodies stream upstream unread, contents come back byte for byte. */

let gateway: RunningGateway;
let upstream: LLMock;
let recorder: RecordingUpstream;

beforeAll(async () => {
  upstream = await startUpstream();
  recorder = await startRecordingUpstream((request) => {
    const id = "upload_abc";
    if (request.path.endsWith("/parts")) return { id: "part_1", object: "upload.part", created_at: 1, upload_id: id };
    const status = request.path.endsWith("/complete") ? "completed" : request.path.endsWith("/cancel") ? "cancelled" : "pending";
    return { id, object: "upload", bytes: 6, created_at: 1, expires_at: 2, filename: "data.jsonl", purpose: "batch", status, file: null };
  });
  // Compiling the official schemas blocks for seconds: done before any connection is open, so
  // none is left idle long enough to be reset mid-test.
  for (const schema of ["DeleteFileResponse", "OpenAIFile", "Upload"]) openaiContractProblems(schema, {});
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await recorder?.close();
});

/** Every byte value, twice, with a CRLF and a boundary-like line inside: what a multipart parser would trip on. */
const BYTES = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, index) => index)), Buffer.from("\r\n--boundary\r\n"), Buffer.from(Array.from({ length: 256 }, (_, index) => 255 - index))]);

describe("files", () => {
  it("uploads a real multipart body and reads it back byte for byte", async () => {
    const client = openaiClient(gateway, upstream);
    const { data: file, response } = await client.files.create({ file: await toFile(BYTES, "blob.bin"), purpose: "user_data" }).withResponse();
    expect(file).toMatchObject({ object: "file", filename: "blob.bin", bytes: BYTES.length, purpose: "user_data" });
    expect(openaiContractProblems("OpenAIFile", file)).toEqual([]);
    const created = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(created).toMatchObject({ route: "createFile", method: "POST", path: "/v1/files", provider: "openai", status: 200 });
    // The upload is logged as what it was (type, size, fields, file names), never its bytes.
    const upload = JSON.parse(created.requestBody!);
    expect(upload).toMatchObject({ size_bytes: created.requestBodyBytes, fields: { purpose: "user_data" }, files: [{ field: "file", filename: "blob.bin" }] });
    expect(upload.content_type).toMatch(/^multipart\/form-data; boundary=/);

    const content = await client.files.content(file.id);
    expect(Buffer.from(await content.arrayBuffer()).equals(BYTES)).toBe(true);
    const downloaded = await storedLog(gateway, content.headers.get("x-gateway-log-id")!);
    expect(downloaded).toMatchObject({ route: "downloadFile", path: `/v1/files/${file.id}/content`, provider: "openai", status: 200 });
  });

  it("lists with the query as sent, retrieves and deletes", async () => {
    const client = openaiClient(gateway, upstream);
    const file = await client.files.create({ file: await toFile(Buffer.from('{"a":1}\n'), "train.jsonl"), purpose: "fine-tune" });
    const listed = await client.files.list({ purpose: "fine-tune", limit: 5, order: "desc" });
    expect(listed.data.map((entry) => entry.id)).toContain(file.id);
    expect(listed.data.every((entry) => entry.purpose === "fine-tune")).toBe(true);
    const sent = upstream.getRequests().filter((request) => request.method === "GET" && request.path.startsWith("/v1/files?")).at(-1)!;
    expect(new URLSearchParams(sent.path.split("?")[1]).toString()).toBe("purpose=fine-tune&limit=5&order=desc");

    const retrieved = await client.files.retrieve(file.id).withResponse();
    expect(retrieved.data).toMatchObject({ id: file.id, filename: "train.jsonl" });
    expect(await storedLog(gateway, retrieved.response.headers.get("x-gateway-log-id")!)).toMatchObject({ route: "retrieveFile", provider: "openai" });
    const deleted = await client.files.delete(file.id);
    expect(deleted).toMatchObject({ id: file.id, deleted: true });
    expect(openaiContractProblems("DeleteFileResponse", deleted)).toEqual([]);
    await expect(client.files.retrieve(file.id)).rejects.toMatchObject({ status: 404 });
  });

  it("refuses an upload body that is not multipart, from its content type alone, before any upstream call", async () => {
    const before = upstream.getRequests().length;
    const headers = upstreamHeaders(gateway, upstream);
    for (const contentType of ["application/json", "multipart/form-data", "text/plain"]) {
      const refused = await call(gateway, "POST", "/v1/files", { rawBody: "{}", headers: { ...headers, "content-type": contentType } });
      expect(refused.status, contentType).toBe(400);
      expect(refused.body.error).toMatchObject({ code: "invalid_request", param: "content-type" });
      expect(await storedLog(gateway, refused.headers.get("x-gateway-log-id")!)).toMatchObject({ route: "createFile", status: 400 });
    }
    expect(upstream.getRequests().length).toBe(before);
  });

  it("refuses a config with guardrails, which it cannot run", async () => {
    const guardrail = await call(gateway, "POST", "/v1/guardrails", { body: { name: "no secrets", checks: [{ type: "contains", params: { words: ["password"], operator: "none" } }] } });
    expect(guardrail.status).toBe(201);
    const config = JSON.stringify({ provider: "openai", custom_host: `${upstream.url}/v1`, input_guardrails: [guardrail.body.slug] });
    const refused = await call(gateway, "GET", "/v1/files", { headers: { "x-gateway-config": config, authorization: `Bearer ${UPSTREAM_KEY}` } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe("x-gateway-config");
    expect(refused.body.error.message).toContain("listFiles cannot run");
  });
});

describe("uploads", () => {
  it("creates an upload, adds a multipart part as sent, completes and cancels, each to its path", async () => {
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: UPSTREAM_KEY, maxRetries: 0, defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": recorder.url } });
    const upload = await client.uploads.create({ filename: "data.jsonl", purpose: "batch", bytes: BYTES.length, mime_type: "text/jsonl" });
    expect(upload).toMatchObject({ id: "upload_abc", status: "pending" });
    expect(openaiContractProblems("Upload", upload)).toEqual([]);
    const { data: part, response } = await client.uploads.parts.create(upload.id, { data: await toFile(BYTES, "part") }).withResponse();
    expect(part).toMatchObject({ id: "part_1", object: "upload.part" });
    const completed = await client.uploads.complete(upload.id, { part_ids: [part.id] });
    expect(completed.status).toBe("completed");
    const cancelled = await client.uploads.cancel(upload.id);
    expect(cancelled.status).toBe("cancelled");

    const [created, added, complete, cancel] = recorder.received.slice(-4);
    expect(created).toMatchObject({ method: "POST", path: "/v1/uploads" });
    expect(JSON.parse(created!.body.toString())).toEqual({ filename: "data.jsonl", purpose: "batch", bytes: BYTES.length, mime_type: "text/jsonl" });
    expect(added).toMatchObject({ method: "POST", path: "/v1/uploads/upload_abc/parts" });
    // The form went upstream as the client sent it: its boundary, and the part's bytes inside it.
    const boundary = /boundary=(.+)$/.exec(added!.headers["content-type"]!)![1]!;
    expect(added!.body.toString("latin1").startsWith(`--${boundary}\r\n`)).toBe(true);
    expect(added!.body.includes(BYTES)).toBe(true);
    expect(complete).toMatchObject({ method: "POST", path: "/v1/uploads/upload_abc/complete" });
    expect(JSON.parse(complete!.body.toString())).toEqual({ part_ids: ["part_1"] });
    expect(cancel).toMatchObject({ method: "POST", path: "/v1/uploads/upload_abc/cancel" });
    const partLog = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(partLog).toMatchObject({ route: "addUploadPart", provider: "openai", status: 200 });
    expect(JSON.parse(partLog.requestBody!)).toMatchObject({ files: [{ field: "data" }] });
  });
});
