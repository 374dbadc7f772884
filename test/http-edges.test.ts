import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { connect } from "node:net";
import { startBunGateway, type BunGateway } from "./support/bun-gateway.ts";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";
import { startGateway, type RunningGateway } from "./support/harness.ts";

/**
 * Requests the runtime's HTTP parser refuses before the app sees them, sent on raw sockets:
 * each gets a clear status (with the error envelope where the runtime lets the app answer),
 * nothing is printed, and the gateway keeps serving.
 */

interface RawAnswer {
  status: number;
  body: string;
}

/** Writes `request` as is and reads until the server closes (or 3 s pass). */
function raw(url: string, request: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let received = "";
    const finish = (): void => {
      socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
      resolve({ status, body: received.split("\r\n\r\n").slice(1).join("\r\n\r\n") });
    };
    socket.setTimeout(3_000, finish);
    socket.on("data", (chunk) => (received += String(chunk)));
    socket.on("close", finish);
    socket.on("error", finish);
    socket.write(request);
  });
}

const head = (lines: string[]): string => `${lines.join("\r\n")}\r\n\r\n`;

/** Every case: the request, and the status both runtimes answer with. */
const CASES = (key: string) => [
  { what: "headers over 16 KiB", status: 431, request: head(["GET /v1/logs HTTP/1.1", "Host: x", `x-gateway-api-key: ${key}`, `x-big: ${"a".repeat(20_000)}`]) },
  { what: "a URL over 16 KiB", status: 431, request: head([`GET /v1/logs?q=${"a".repeat(20_000)} HTTP/1.1`, "Host: x"]) },
  { what: "a NUL byte in a header", status: 400, request: head(["GET /health HTTP/1.1", "Host: x", "x-odd: a\0b"]) },
  {
    what: "Content-Length with Transfer-Encoding",
    status: 400,
    request: head(["POST /v1/chat/completions HTTP/1.1", "Host: x", "Content-Length: 5", "Transfer-Encoding: chunked"]) + "0\r\n\r\n",
  },
  { what: "two different Content-Lengths", status: 400, request: head(["POST /v1/chat/completions HTTP/1.1", "Host: x", "Content-Length: 5", "Content-Length: 6"]) + "hello" },
];

/** A chunked body that breaks off into garbage, after valid headers of an authenticated request. */
const brokenChunkedBody = (key: string): string =>
  head(["POST /v1/chat/completions HTTP/1.1", "Host: x", `x-gateway-api-key: ${key}`, "content-type: application/json", "Transfer-Encoding: chunked"]) +
  "5\r\n{\"mod\r\nzz-not-a-chunk-size\r\n\r\n";

describe("HTTP the parser refuses, under Node (npm run start:node's server)", () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startGateway();
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it.each(CASES("unused"))("answers $what with $status and the error envelope", async ({ request, status }) => {
    const answer = await raw(gateway.url, request);
    expect(answer.status).toBe(status);
    expect(JSON.parse(answer.body).error).toMatchObject({ type: "invalid_request_error", code: status === 431 ? "headers_too_large" : "invalid_request" });
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
  });

  it("drops a malformed chunked body without printing anything, and keeps serving", async () => {
    const printed = vi.spyOn(console, "error");
    const answer = await raw(gateway.url, brokenChunkedBody(gateway.adminKey));
    expect([0, 400]).toContain(answer.status);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(printed).not.toHaveBeenCalled();
    printed.mockRestore();
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
  });
});

describe("HTTP the parser refuses, under npm start (Bun)", () => {
  let gateway: BunGateway;
  const databaseUrl = sqliteTestUrl();
  beforeAll(async () => {
    gateway = await startBunGateway(databaseUrl);
  });
  afterAll(async () => {
    await gateway?.stop();
    await removeSqliteTestDatabase(databaseUrl);
  });

  // Bun answers these itself, without a body: the app is never called (see docs/operations.md, "HTTP limits").
  it.each(CASES("unused"))("answers $what with $status", async ({ request, status }) => {
    const answer = await raw(gateway.url, request);
    expect(answer.status).toBe(status);
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
  });

  it("drops a malformed chunked body without printing anything, and keeps serving", async () => {
    const answer = await raw(gateway.url, brokenChunkedBody(gateway.adminKey));
    expect([0, 400]).toContain(answer.status);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
    expect(gateway.stderr()).toBe("");
  });
});
