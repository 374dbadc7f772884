import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startGateway, storedLog, type RunningGateway } from "./support/harness.ts";

/**
 * Uploads on the pass-through and `/v1/files`: streamed upstream as they arrive, within the
 * upload limit; JSON bodies within the (here smaller) body limit.
 */

const LIMIT = 64 * 1024;
const UPLOAD_LIMIT = 256 * 1024;
let gateway: RunningGateway;
let upstream: Server;
let upstreamUrl: string;
/** Resolves when the upstream has received the first bytes of the current upload. */
let firstBytes: Promise<void>;
let sawFirstBytes: () => void = () => undefined;
const received: Array<{ bytes: number; complete: boolean; aborted: Promise<boolean>; length: string | undefined }> = [];

function expectUpload(): void {
  firstBytes = new Promise((resolve) => (sawFirstBytes = resolve));
}

beforeAll(async () => {
  upstream = createServer((request, response) => {
    let closed: (aborted: boolean) => void = () => undefined;
    const upload = { bytes: 0, complete: false, aborted: new Promise<boolean>((resolve) => (closed = resolve)), length: request.headers["content-length"] };
    received.push(upload);
    // Closed before its end: the request was cut off (a complete one ends first).
    request.on("close", () => closed(!upload.complete));
    request.on("data", (chunk: Buffer) => {
      upload.bytes += chunk.byteLength;
      sawFirstBytes();
    });
    request.on("end", () => {
      upload.complete = true;
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ object: "file", bytes: upload.bytes }));
    });
    request.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
  gateway = await startGateway({ GATEWAY_MAX_BODY_BYTES: LIMIT, GATEWAY_MAX_UPLOAD_BYTES: UPLOAD_LIMIT });
});

afterAll(async () => {
  await gateway?.close();
  upstream?.closeAllConnections();
  await new Promise((resolve) => upstream?.close(resolve));
});

/** A chunked upload whose second part is sent only once the upstream saw the first (or after 5 s). */
function chunkedUpload(parts: Uint8Array[]): { body: ReadableStream<Uint8Array>; streamedAhead: () => boolean } {
  let ahead = false;
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent === 1) {
        ahead = await Promise.race([firstBytes.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5000))]);
      }
      const part = parts[sent++];
      if (part) controller.enqueue(part);
      else controller.close();
    },
  });
  return { body, streamedAhead: () => ahead };
}

const headers = (extra: Record<string, string> = {}) => ({
  "x-gateway-api-key": gateway.adminKey,
  "x-gateway-provider": "openai",
  "x-gateway-custom-host": upstreamUrl,
  "content-type": "application/octet-stream",
  ...extra,
});

describe("uploads on the pass-through", () => {
  it("streams a chunked upload upstream before the client has finished sending it", async () => {
    expectUpload();
    const upload = chunkedUpload([new Uint8Array(10_000), new Uint8Array(10_000)]);
    const response = await fetch(`${gateway.url}/v1/containers/cntr_1/files`, { method: "POST", headers: headers(), body: upload.body, duplex: "half" } as RequestInit);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ object: "file", bytes: 20_000 });
    expect(upload.streamedAhead()).toBe(true);
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "passThrough", path: "/v1/containers/cntr_1/files", status: 200, requestBodyBytes: 20_000 });
    // The upload is logged as what it was, never its bytes.
    expect(JSON.parse(record.requestBody!)).toEqual({ content_type: "application/octet-stream", size_bytes: 20_000 });
  });

  it("takes an upload past the JSON body limit but within the upload limit, chunked or with a length", async () => {
    expectUpload();
    const upload = chunkedUpload([new Uint8Array(LIMIT), new Uint8Array(LIMIT)]);
    const chunked = await fetch(`${gateway.url}/v1/containers/cntr_1/files`, { method: "POST", headers: headers(), body: upload.body, duplex: "half" } as RequestInit);
    expect(chunked.status).toBe(200);
    expect(await chunked.json()).toEqual({ object: "file", bytes: 2 * LIMIT });
    const declared = await fetch(`${gateway.url}/v1/containers/cntr_1/files`, { method: "POST", headers: headers(), body: new Uint8Array(UPLOAD_LIMIT) });
    expect(declared.status).toBe(200);
    expect(await declared.json()).toEqual({ object: "file", bytes: UPLOAD_LIMIT });
    // A sized body goes upstream sized; a chunked one stays chunked.
    expect(received.at(-1)!.length).toBe(String(UPLOAD_LIMIT));
    expect(received.at(-2)!.length).toBeUndefined();
    const record = await storedLog(gateway, declared.headers.get("x-gateway-log-id")!);
    expect(JSON.parse(record.requestBody!)).toEqual({ content_type: "application/octet-stream", size_bytes: UPLOAD_LIMIT });
  });

  it("refuses a chunked upload past the upload limit with 413, and the upstream sees its request aborted", async () => {
    expectUpload();
    const upload = chunkedUpload([new Uint8Array(UPLOAD_LIMIT - 10), new Uint8Array(100), new Uint8Array(100)]);
    const response = await fetch(`${gateway.url}/v1/containers/cntr_1/files`, { method: "POST", headers: headers(), body: upload.body, duplex: "half" } as RequestInit);
    expect(response.status).toBe(413);
    const { error } = await response.json();
    expect(error.code).toBe("body_too_large");
    expect(error.message).toContain(`GATEWAY_MAX_UPLOAD_BYTES (${UPLOAD_LIMIT} bytes)`);
    const last = received.at(-1)!;
    expect(last.bytes).toBeGreaterThan(0);
    // The upstream got the request's start, then a cut connection: never a complete, short body.
    expect(await last.aborted).toBe(true);
    expect(last.complete).toBe(false);
    expect(last.bytes).toBeLessThanOrEqual(UPLOAD_LIMIT);
  });

  it("refuses a multipart upload to /v1/files past the upload limit, chunked or declared", async () => {
    const boundary = "----bench-boundary";
    const head = new TextEncoder().encode(`--${boundary}\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="a.jsonl"\r\ncontent-type: application/jsonl\r\n\r\n`);
    const multipart = { ...headers(), "content-type": `multipart/form-data; boundary=${boundary}` };
    const before = received.length;
    const declared = await fetch(`${gateway.url}/v1/files`, { method: "POST", headers: multipart, body: new Uint8Array(UPLOAD_LIMIT + 1) });
    expect(declared.status).toBe(413);
    expect((await declared.json()).error.message).toContain("GATEWAY_MAX_UPLOAD_BYTES");
    // A declared length past the limit is refused from the header: nothing goes upstream.
    expect(received.length).toBe(before);

    expectUpload();
    const upload = chunkedUpload([head, new Uint8Array(UPLOAD_LIMIT), new Uint8Array(10)]);
    const chunked = await fetch(`${gateway.url}/v1/files`, { method: "POST", headers: multipart, body: upload.body, duplex: "half" } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await chunked.json()).error.code).toBe("body_too_large");
    const last = received.at(-1)!;
    expect(await last.aborted).toBe(true);
    expect(last.complete).toBe(false);
  });

  it("refuses a JSON body past the body limit with a length, though the upload limit is larger", async () => {
    const body = JSON.stringify({ model: "text-embedding-3-small", input: "x".repeat(LIMIT) });
    const response = await fetch(`${gateway.url}/v1/embeddings`, { method: "POST", headers: headers({ "content-type": "application/json", connection: "close" }), body });
    expect(response.status).toBe(413);
    const { error } = await response.json();
    expect(error.code).toBe("body_too_large");
    expect(error.message).toContain(`GATEWAY_MAX_BODY_BYTES (${LIMIT} bytes)`);
  });

  it("still reads a chunked JSON body whole and refuses it past the limit", async () => {
    const json = (size: number) =>
      new Blob([JSON.stringify({ model: "text-embedding-3-small", input: "x".repeat(size) })]).stream();
    const over = await fetch(`${gateway.url}/v1/embeddings`, { method: "POST", headers: headers({ "content-type": "application/json" }), body: json(LIMIT), duplex: "half" } as RequestInit);
    expect(over.status).toBe(413);
    const { error } = await over.json();
    expect(error.code).toBe("body_too_large");
    expect(error.message).toContain("GATEWAY_MAX_BODY_BYTES");
  });
});
