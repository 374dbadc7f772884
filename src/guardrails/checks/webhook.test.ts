import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fail, GatewayError } from "../../errors.ts";
import { checkContext } from "../testing.ts";
import type { CheckContext } from "../types.ts";
import { webhook } from "./webhook.ts";

interface Seen {
  method?: string;
  path?: string;
  headers: IncomingMessage["headers"];
  body: unknown;
}

let server: Server;
let base: string;
let seen: Seen[] = [];
let hugeSent = 0;
const routes: Record<string, (res: ServerResponse) => void> = {
  "/pass": (res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ verdict: true, data: { score: 0.1 } })),
  "/deny": (res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ verdict: false, explanation: "Toxic content." })),
  "/error": (res) => res.writeHead(500).end("boom"),
  "/html": (res) => res.writeHead(200, { "content-type": "text/html" }).end("<p>hi</p>"),
  "/no-verdict": (res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ verdict: "yes" })),
  "/redirect": (res) => res.writeHead(302, { location: "/pass" }).end(),
  // A chunked answer (no Content-Length) of 150 MB, written only as fast as it is read.
  "/huge": (res) => {
    res.writeHead(200, { "content-type": "application/json" });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const write = (): void => {
      while (hugeSent < 150 * 1024 * 1024 && !res.destroyed) {
        hugeSent += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", write);
      }
      res.end();
    };
    res.write('{"verdict": true, "pad": "');
    write();
  },
  "/slow": (res) => {
    setTimeout(() => res.writeHead(200).end(JSON.stringify({ verdict: true })), 1_000).unref();
  },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      seen.push({ method: req.method, path: req.url, headers: req.headers, body: text ? JSON.parse(text) : null });
      (routes[req.url ?? ""] ?? ((r: ServerResponse) => r.writeHead(404).end()))(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen = [];
});

const context = (overrides: Partial<CheckContext> = {}) =>
  checkContext({
    text: "hello there",
    stage: "output",
    model: "gpt-4o-mini",
    metadata: { team: "a" },
    fetch: (input, init) => fetch(input, init),
    ...overrides,
  });

const run = (params: Record<string, unknown>, overrides: Partial<CheckContext> = {}) =>
  webhook.run(webhook.params.parse(params), context(overrides));

describe("webhook", () => {
  it("POSTs the text as JSON with the configured headers and passes on verdict true", async () => {
    const outcome = await run({ url: `${base}/pass`, headers: { authorization: "Bearer s3cret-token" } });
    expect(outcome).toEqual({ verdict: true, explanation: "The webhook passed the text.", data: { status: 200, response: { score: 0.1 } } });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: "POST",
      path: "/pass",
      headers: { authorization: "Bearer s3cret-token", "content-type": "application/json" },
      body: { text: "hello there", stage: "output", model: "gpt-4o-mini", metadata: { team: "a" } },
    });
    expect(JSON.stringify(outcome)).not.toContain("s3cret");
  });

  it("fails on verdict false, with the webhook's explanation", async () => {
    expect(await run({ url: `${base}/deny` })).toEqual({ verdict: false, explanation: "Toxic content.", data: { status: 200 } });
  });

  it("fails on a non-2xx answer, a non-JSON answer and a missing boolean verdict", async () => {
    expect(await run({ url: `${base}/error` })).toEqual({ verdict: false, explanation: "The webhook answered HTTP 500.", data: { status: 500 } });
    expect(await run({ url: `${base}/html` })).toMatchObject({ verdict: false, explanation: "The webhook's answer is not JSON." });
    expect(await run({ url: `${base}/no-verdict` })).toMatchObject({ verdict: false, explanation: "The webhook's answer has no boolean verdict." });
  });

  it("stops reading a chunked answer past 1 MB and fails the check, whatever the headers say", async () => {
    const started = performance.now();
    expect(await run({ url: `${base}/huge`, timeout_ms: 10_000 })).toEqual({
      verdict: false,
      explanation: "The webhook's answer is larger than 1000000 bytes.",
      data: { status: 200 },
    });
    expect(performance.now() - started).toBeLessThan(3000);
    expect(hugeSent).toBeLessThan(20 * 1024 * 1024);
  });

  it("does not follow redirects", async () => {
    expect(await run({ url: `${base}/redirect` })).toMatchObject({ verdict: false, explanation: "The webhook answered HTTP 302." });
    expect(seen.map((request) => request.path)).toEqual(["/redirect"]);
  });

  it("fails when the webhook is slower than timeout_ms", async () => {
    const started = performance.now();
    expect(await run({ url: `${base}/slow`, timeout_ms: 100 })).toEqual({ verdict: false, explanation: "The webhook did not answer within 100 ms." });
    expect(performance.now() - started).toBeLessThan(900);
  });

  it("fails when the request is cancelled", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(await run({ url: `${base}/slow` }, { signal: controller.signal })).toMatchObject({
      verdict: false,
      explanation: "The request was cancelled before the webhook answered.",
    });
  });

  it("fails when the host cannot be reached", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await run({ url: `http://127.0.0.1:${port}/x` })).toEqual({ verdict: false, explanation: "The webhook could not be reached." });
  });

  it("asks the SSRF gate first and never calls a refused URL", async () => {
    const refused = new GatewayError("forbidden_custom_host", "The host resolves to a private address.");
    const outcome = await run({ url: `${base}/pass` }, { checkUrl: async () => fail(refused) });
    expect(outcome).toEqual({ verdict: false, explanation: "The webhook URL was refused: The host resolves to a private address." });
    expect(seen).toHaveLength(0);
  });

  it("gives the runner a time limit above its own", () => {
    expect(webhook.timeoutMs?.(webhook.params.parse({ url: base }))).toBe(4000);
    expect(webhook.timeoutMs?.(webhook.params.parse({ url: base, timeout_ms: 30_000 }))).toBe(31_000);
  });

  it("refuses bad URLs, timeouts and headers", () => {
    const bad = [
      { url: "not a url" },
      { url: "ftp://example.com/hook" },
      { url: "https://user:pass@example.com/hook" },
      { url: "https://example.com", timeout_ms: 30_001 },
      { url: "https://example.com", timeout_ms: 0 },
      { url: "https://example.com", headers: { "bad header": "x" } },
      { url: "https://example.com", headers: { Host: "evil" } },
      { url: "https://example.com", headers: { "x-a": "line\r\nInjected: 1" } },
      { url: "https://example.com", method: "GET" },
    ];
    for (const params of bad) expect(webhook.params.safeParse(params).success, JSON.stringify(params)).toBe(false);
    expect(webhook.params.safeParse({ url: "https://example.com/hook", headers: { "x-api-key": "k" }, timeout_ms: 500 }).success).toBe(true);
  });
});
